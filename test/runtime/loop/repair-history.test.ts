/**
 * A resumed history is repaired into one the strict scripted server's rules accept, whatever the file
 * held: orphan, unknown-id, duplicate and out-of-order results, unanswered calls, fields the API does not
 * take, empty or repeated call ids. Repairing is idempotent, and a valid history is left as it is.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_TOOL_RESULT, interruptedToolResults } from "../../../src/runtime/loop/interrupted-tool-calls.js";
import type { ChatMessage } from "../../../src/runtime/loop/messages.js";
import { repairHistory } from "../../../src/runtime/loop/repair-history.js";
import { findViolations } from "../../../src/scripted-server/request-rules.js";
import { call } from "./fakes.js";

/** What the agent sends after a resume: the repaired history, the owed "interrupted" results, the prompt. */
function sentAfterResume(messages: readonly ChatMessage[]): ChatMessage[] {
  const repaired = repairHistory(messages).messages;
  return [...repaired, ...interruptedToolResults(repaired), { role: "user", content: "go on" }];
}

const interrupted = (id: string): ChatMessage => ({ role: "tool", tool_call_id: id, content: INTERRUPTED_TOOL_RESULT });
const result = (id: string, content = `result ${id}`): ChatMessage => ({ role: "tool", tool_call_id: id, content });
const user: ChatMessage = { role: "user", content: "hi" };
const calls = (...ids: string[]): ChatMessage => {
  const [first, ...rest] = ids.map((id) => call(id));
  if (first === undefined) throw new Error("calls needs an id");
  return { role: "assistant", content: null, tool_calls: [first, ...rest] };
};

describe("repairHistory", () => {
  it("leaves a valid history as it is, and says nothing", () => {
    const history = [user, calls("a", "b"), result("a"), result("b"), { role: "assistant", content: "done" } as ChatMessage];
    expect(repairHistory(history)).toEqual({ messages: history, repairs: [] });
  });

  it("drops results that answer no call before them (an orphan left by a corrupt line, an unknown id) and second results", () => {
    const history = [user, result("lost"), calls("a"), result("a"), result("a", "again"), result("zzz"), user];
    expect(repairHistory(history)).toEqual({
      messages: [user, calls("a"), result("a"), user],
      repairs: [
        'dropped 2 tool results answering no tool call of the assistant message before it: "lost", "zzz"',
        'dropped 1 second result for a tool call already answered: "a"',
      ],
    });
  });

  it("puts results back in call order and answers a gap in the middle as interrupted", () => {
    expect(repairHistory([user, calls("a", "b", "c"), result("c"), result("a"), user])).toEqual({
      messages: [user, calls("a", "b", "c"), result("a"), interrupted("b"), result("c"), user],
      repairs: ["put the tool results of 1 assistant message back in call order", 'answered 1 tool call left without a result as interrupted: "b"'],
    });
  });

  it("at the very end, leaves the calls after the last result to the agent (it writes their answers to the file)", () => {
    const history = [user, calls("a", "b", "c"), result("a")];
    expect(repairHistory(history)).toEqual({ messages: history, repairs: [] });
    expect(interruptedToolResults(history)).toEqual([interrupted("b"), interrupted("c")]);
  });

  it("removes fields the API does not take, on messages and on tool calls", () => {
    const hostile = [
      { role: "system", content: "s", name: "boss" },
      { role: "user", content: "u", name: "me" },
      { role: "assistant", content: null, refusal: null, parsed: null, tool_calls: [{ ...call("a"), index: 0, function: { name: "echo", arguments: "{}", parsed_arguments: {} } }] },
      { role: "tool", tool_call_id: "a", content: "r", name: "echo" },
      { role: "assistant", content: "done", annotations: [], audio: null },
    ] as unknown as ChatMessage[];
    expect(repairHistory(hostile)).toEqual({
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "u" },
        { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "echo", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "a", content: "r" },
        { role: "assistant", content: "done" },
      ],
      repairs: [
        "removed fields the API does not take: name (3×), refusal (1×), parsed (1×), tool_calls[].index (1×), tool_calls[].function.parsed_arguments (1×), annotations (1×), audio (1×)",
      ],
    });
  });

  it("drops calls with an empty or repeated id and names a call without a name", () => {
    const history = [user, { role: "assistant", content: "x", tool_calls: [call(""), call("a"), call("a"), call("b", "")] } as ChatMessage, result("a"), result("b")];
    expect(repairHistory(history)).toEqual({
      messages: [user, { role: "assistant", content: "x", tool_calls: [call("a"), call("b", "missing_tool_name")] }, result("a"), result("b")],
      repairs: ['dropped 2 tool calls with an empty or repeated id: "", "a"', "named 1 tool call without a name missing_tool_name"],
    });
  });

  it("10,000 unanswered calls before the next message: repaired in linear time", () => {
    const ids = Array.from({ length: 10_000 }, (_, index) => `c${index}`);
    const repaired = repairHistory([user, calls(...ids), result("c9999"), user]);
    expect(repaired.messages).toHaveLength(10_003);
    expect(repaired.repairs.at(-1)).toBe('answered 9999 tool calls left without a result as interrupted: "c0", "c1", "c2", "c3", "c4" and 9994 more');
  });

  it("property: whatever the file held, the strict server accepts what is sent, and repairing again changes nothing", () => {
    const id = fc.constantFrom("a", "b", "c", "");
    const extra = fc.dictionary(fc.constantFrom("name", "refusal", "parsed", "annotations"), fc.constant(null), { maxKeys: 2 });
    const toolCall = fc.record({ id, name: fc.constantFrom("echo", ""), index: fc.option(fc.nat(3), { nil: undefined }) }).map(({ id: callId, name, index }) => ({
      ...call(callId, name),
      ...(index === undefined ? {} : { index }),
    }));
    const message = fc.oneof(
      fc.record({ role: fc.constantFrom("system", "user"), content: fc.string() }),
      fc.record({ role: fc.constant("assistant"), content: fc.string() }),
      fc.record({ role: fc.constant("assistant"), content: fc.option(fc.string(), { nil: null }), tool_calls: fc.array(toolCall, { minLength: 1, maxLength: 4 }) }),
      fc.record({ role: fc.constant("tool"), tool_call_id: id, content: fc.string() }),
    );
    const withExtra = fc.tuple(message, extra).map(([m, fields]) => ({ ...fields, ...m }) as unknown as ChatMessage);
    fc.assert(
      fc.property(fc.array(withExtra, { maxLength: 12 }), (history) => {
        expect(findViolations({ model: "m", messages: sentAfterResume(history) })).toEqual([]);
        const once = repairHistory(history).messages;
        expect(repairHistory(once)).toEqual({ messages: once, repairs: [] });
      }),
      { numRuns: 500 },
    );
  });
});
