/** Whatever chunks a provider streams, the assembled turn is a message a strict gateway accepts. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StreamAssembler } from "../../../src/runtime/model/assemble-stream.js";
import type { AssistantMessage } from "../../../src/runtime/loop/messages.js";
import { normalizeTurn, rawTurnFromCompletion } from "../../../src/runtime/model/normalize-turn.js";
import { findViolations } from "../../../src/scripted-server/request-rules.js";

/** What the strict server says about this message sent back as history (its tool calls answered). */
function gatewayProblems(message: AssistantMessage): string[] {
  const answers = "tool_calls" in message ? message.tool_calls.map((call) => ({ role: "tool", tool_call_id: call.id, content: "ok" })) : [];
  return findViolations({ model: "m", messages: [{ role: "user", content: "hi" }, message, ...answers] });
}

const anyDelta = fc.record(
  {
    index: fc.oneof(fc.nat({ max: 3 }), fc.constant(undefined), fc.string()),
    id: fc.oneof(fc.constantFrom("a", "b", "", "call_x"), fc.constant(undefined), fc.constant(null)),
    type: fc.constantFrom("function", undefined),
    function: fc.oneof(
      fc.record(
        {
          name: fc.oneof(fc.constantFrom("add", "", "mul"), fc.constant(undefined), fc.integer()),
          arguments: fc.oneof(fc.string(), fc.constant(null), fc.dictionary(fc.string(), fc.jsonValue()), fc.integer()),
        },
        { requiredKeys: [] },
      ),
      fc.constant(null),
      fc.string(),
    ),
  },
  { requiredKeys: [] },
);

const anyChunk = fc.oneof(
  fc.record(
    {
      choices: fc.oneof(
        fc.array(
          fc.record(
            {
              index: fc.constantFrom(0, 1, undefined),
              delta: fc.oneof(
                fc.record(
                  {
                    role: fc.constant("assistant"),
                    content: fc.oneof(fc.string(), fc.constant(null)),
                    tool_calls: fc.oneof(fc.array(anyDelta, { maxLength: 3 }), fc.constant(null), fc.string()),
                    refusal: fc.constant(null),
                  },
                  { requiredKeys: [] },
                ),
                fc.constant(null),
              ),
              finish_reason: fc.oneof(fc.constantFrom("stop", "tool_calls", "length", "weird", null, ""), fc.integer()),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
        fc.constant(null),
      ),
      usage: fc.oneof(
        fc.constant(undefined),
        fc.record({ prompt_tokens: fc.nat(), completion_tokens: fc.nat(), prompt_tokens_details: fc.record({ cached_tokens: fc.nat() }) }),
        fc.jsonValue(),
      ),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);

const anyChoice = fc.record(
  {
    message: fc.record(
      {
        role: fc.constant("assistant"),
        content: fc.oneof(fc.string(), fc.constant(null), fc.jsonValue()),
        tool_calls: fc.oneof(fc.array(anyDelta, { maxLength: 4 }), fc.jsonValue()),
        refusal: fc.constant(null),
        annotations: fc.constant([]),
      },
      { requiredKeys: [] },
    ),
    finish_reason: fc.oneof(fc.constantFrom("stop", "tool_calls", "length", null), fc.string()),
  },
  { requiredKeys: [] },
);

describe("stream assembly and normalization", () => {
  it("never throws on an object chunk, and always yields a message the strict gateway accepts", () => {
    fc.assert(
      fc.property(fc.array(anyChunk, { maxLength: 12 }), (chunks) => {
        const assembler = new StreamAssembler();
        for (const chunk of chunks) {
          try {
            assembler.add(chunk);
          } catch (error) {
            // Only a chunk that is not an object is refused, as a malformed stream.
            expect(error).toBeInstanceOf(TypeError);
            expect(typeof chunk !== "object" || chunk === null || Array.isArray(chunk)).toBe(true);
          }
        }
        const turn = normalizeTurn(assembler.result());
        expect(gatewayProblems(turn.message)).toEqual([]);
        expect(Object.keys(turn.message).sort()).toEqual("tool_calls" in turn.message ? ["content", "role", "tool_calls"] : ["content", "role"]);
        if ("tool_calls" in turn.message && ["stop", "tool_calls"].includes(turn.finishReason)) expect(turn.finishReason).toBe("tool_calls");
      }),
      { numRuns: 500 },
    );
  });

  it("normalizes any non-streamed first choice the same way", () => {
    fc.assert(
      fc.property(fc.oneof(anyChoice, fc.jsonValue()), fc.jsonValue(), (choice, usage) => {
        const raw = rawTurnFromCompletion(choice, usage);
        if (raw === undefined) return;
        expect(gatewayProblems(normalizeTurn(raw).message)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("joins deltas by index, and by id when there is none", () => {
    const assembler = new StreamAssembler();
    const delta = (toolCall: Record<string, unknown>) => ({ choices: [{ index: 0, delta: { tool_calls: [toolCall] } }] });
    for (const chunk of [
      delta({ index: 0, id: "a", function: { name: "add", arguments: '{"a"' } }),
      delta({ index: 1, id: "b", function: { name: "mul", arguments: "{" } }),
      delta({ index: 0, function: { arguments: ":1}" } }),
      delta({ index: 1, function: { arguments: "}" } }),
      // A provider reusing index 0 for another call:
      delta({ index: 0, id: "c", function: { name: "add", arguments: "{}" } }),
    ]) {
      assembler.add(chunk);
    }
    expect(normalizeTurn(assembler.result()).message).toMatchObject({
      tool_calls: [
        { id: "a", function: { name: "add", arguments: '{"a":1}' } },
        { id: "b", function: { name: "mul", arguments: "{}" } },
        { id: "c", function: { name: "add", arguments: "{}" } },
      ],
    });
  });
});
