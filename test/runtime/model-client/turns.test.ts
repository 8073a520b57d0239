/** What a turn becomes: the message the loop keeps, its finish reason and usage, streamed or not. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MISSING_NAME } from "../../../src/runtime/model/normalize-turn.js";
import { PROMPT, TOOLS, requestTurn, useScriptedServer } from "./harness.js";

const ctx = useScriptedServer();

describe.each([
  ["streaming", true],
  ["non-streaming", false],
])("%s", (_label, stream) => {
  it("returns a text answer with usage and cached tokens, and sends the request as given", async () => {
    const run = await requestTurn(ctx.server, [{ content: "The sum is 3.", usage: { prompt: 120, completion: 7, cached: 100 } }], stream);
    expect(run.turn).toEqual({
      message: { role: "assistant", content: "The sum is 3." },
      finishReason: "stop",
      usage: { promptTokens: 120, completionTokens: 7, cachedTokens: 100 },
    });
    const sent = ctx.server.requests.at(-1)?.body;
    expect(sent?.model).toBe("test-model");
    expect(sent?.messages).toEqual(PROMPT);
    expect(sent?.tools).toEqual(TOOLS);
    if (stream) {
      expect(sent).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      expect(run.text.join("")).toBe("The sum is 3.");
      expect(run.text.length).toBeGreaterThan(1);
    } else {
      expect(sent?.stream).toBe(false);
      expect(sent?.stream_options).toBeUndefined();
      expect(run.text).toEqual([]);
    }
  });

  it("keeps only role, content and tool_calls, with arguments as strings", async () => {
    const run = await requestTurn(
      ctx.server,
      [{ toolCalls: [{ id: "call_a", name: "add", arguments: '{"a":1,"b":2}' }, { id: "call_b", name: "add", arguments: '{"a":3,"b":4}' }] }],
      stream,
    );
    expect(run.turn?.message).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_a", type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } },
        { id: "call_b", type: "function", function: { name: "add", arguments: '{"a":3,"b":4}' } },
      ],
    });
    expect(run.turn?.finishReason).toBe("tool_calls");
  });

  it("sends arguments that came as an object back as their JSON string", async () => {
    const run = await requestTurn(ctx.server, [{ toolCalls: [{ id: "call_o", name: "add", arguments: { a: 1, b: 2 } }] }], stream);
    expect(run.turn?.message).toMatchObject({ tool_calls: [{ id: "call_o", function: { arguments: '{"a":1,"b":2}' } }] });
  });

  it("keeps object arguments when a late name is followed by an empty arguments piece", async () => {
    const run = await requestTurn(
      ctx.server,
      [{ toolCalls: [{ id: "call_o", name: "add", arguments: { a: 1, b: 2 } }], stream: { lateName: true, chunkSize: 1 } }],
      stream,
    );
    expect(run.turn?.message).toMatchObject({ tool_calls: [{ id: "call_o", function: { name: "add", arguments: '{"a":1,"b":2}' } }] });
  });

  it("treats stop with tool calls as a tool-call turn", async () => {
    const run = await requestTurn(ctx.server, [{ content: "Let me add.", toolCalls: [{ id: "c1", name: "add", arguments: "{}" }], finishReason: "stop" }], stream);
    expect(run.turn?.finishReason).toBe("tool_calls");
    expect(run.turn?.message).toMatchObject({ content: "Let me add.", tool_calls: [{ id: "c1" }] });
  });

  it("treats a missing finish reason with tool calls as a tool-call turn, and without as stop", async () => {
    const withCalls = await requestTurn(ctx.server, [{ toolCalls: [{ id: "c1", name: "add", arguments: "{}" }], finishReason: null }], stream);
    expect(withCalls.turn?.finishReason).toBe("tool_calls");
    const without = await requestTurn(ctx.server, [{ content: "hi", finishReason: null }], stream);
    expect(without.turn).toMatchObject({ finishReason: "stop", message: { role: "assistant", content: "hi" } });
  });

  it("passes length, content_filter and unknown finish reasons through without retrying them", async () => {
    for (const reason of ["length", "content_filter", "eos_token_weird"]) {
      const run = await requestTurn(ctx.server, [{ content: "partial", toolCalls: [{ id: "c1", name: "add", arguments: '{"a":' }], finishReason: reason }], stream);
      expect(run.turn?.finishReason).toBe(reason);
      expect(run.requestCount).toBe(1);
    }
  });

  it("replaces missing, empty and repeated ids, and a missing name", async () => {
    const run = await requestTurn(
      ctx.server,
      [
        {
          toolCalls: [
            { name: "add", arguments: "{}" },
            { id: "", name: "add", arguments: "{}" },
            { id: "dup", name: "add", arguments: "{}" },
            { id: "dup", name: "add", arguments: "{}" },
            { id: "nameless", name: "", arguments: '{"a":1}' },
          ],
        },
      ],
      stream,
    );
    const calls = run.turn?.message && "tool_calls" in run.turn.message ? run.turn.message.tool_calls : [];
    const ids = calls.map((call) => call.id);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    expect(ids[2]).toBe("dup");
    for (const id of [ids[0], ids[1], ids[3]]) expect(id).toMatch(/^call_[A-Za-z0-9_-]{16}$/);
    expect(calls[4]?.function).toEqual({ name: MISSING_NAME, arguments: '{"a":1}' });
  });

  it("never returns content null without tool calls", async () => {
    const run = await requestTurn(ctx.server, [{ content: null }], stream);
    expect(run.turn?.message).toEqual({ role: "assistant", content: "" });
  });

  it("receives a huge response whole", async () => {
    const content = "x".repeat(4_000_000) + "END";
    const run = await requestTurn(ctx.server, [{ content, stream: { chunkSize: 65_536 } }], stream);
    expect(run.turn?.message.content).toBe(content);
  });

  it("sends back a history with tool calls that the strict server accepts", async () => {
    const first = await requestTurn(ctx.server, [{ toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }], finishReason: "stop" }], stream);
    const message = first.turn?.message;
    if (!message || !("tool_calls" in message)) throw new Error("expected tool calls");
    const history = [...PROMPT, message, { role: "tool" as const, tool_call_id: message.tool_calls[0].id, content: "3" }];
    const second = await requestTurn(ctx.server, [{ content: "3" }], stream, { request: { messages: history } });
    expect(second.error).toBeUndefined();
    expect(ctx.server.requests.at(-1)?.violations).toEqual([]);
    expect(ctx.server.requests.at(-1)?.flags).toEqual([]);
  });
});

describe("streams that end without a finish reason", () => {
  it("a text answer ending with [DONE] is complete", async () => {
    const run = await requestTurn(ctx.server, [{ content: "complete", finishReason: null }], true);
    expect(run.turn).toMatchObject({ finishReason: "stop", message: { content: "complete" } });
  });

  it("a text answer with neither finish reason nor [DONE] was cut short: dropped and resent", async () => {
    const cutShort = { content: "half an ans", finishReason: null, stream: { done: false } };
    const recovered = await requestTurn(ctx.server, [cutShort, { content: "whole answer" }], true);
    expect(recovered.turn?.message.content).toBe("whole answer");
    expect(recovered.retries).toMatchObject([{ by: "broken_response", kind: "malformed" }]);
    const failed = await requestTurn(ctx.server, () => cutShort, true);
    expect(failed.error?.kind).toBe("malformed");
    expect(failed.error?.message).toMatch(/the stream ended without a finish reason or \[DONE\]/);
  });

  it("tool calls with neither are still a tool-call turn", async () => {
    const run = await requestTurn(ctx.server, [{ toolCalls: [{ id: "c1", name: "add", arguments: "{}" }], finishReason: null, stream: { done: false } }], true);
    expect(run.turn?.finishReason).toBe("tool_calls");
  });
});

describe("streamed tool-call quirks", () => {
  it("assembles deltas without index: a new id opens a call, no id continues the last", async () => {
    const run = await requestTurn(
      ctx.server,
      [{ toolCalls: [{ id: "c1", name: "add", arguments: '{"a":1,"b":2}' }, { id: "c2", name: "add", arguments: '{"a":5,"b":6}' }], stream: { omitIndex: true, chunkSize: 3 } }],
      true,
    );
    expect(run.turn?.message).toMatchObject({
      tool_calls: [
        { id: "c1", function: { name: "add", arguments: '{"a":1,"b":2}' } },
        { id: "c2", function: { name: "add", arguments: '{"a":5,"b":6}' } },
      ],
    });
  });

  it("accepts ids and names that arrive late", async () => {
    const run = await requestTurn(
      ctx.server,
      [{ toolCalls: [{ id: "late1", name: "add", arguments: '{"a":1}' }, { id: "late2", name: "mul", arguments: "{}" }], stream: { lateId: true, lateName: true, chunkSize: 2 } }],
      true,
    );
    expect(run.turn?.message).toMatchObject({
      tool_calls: [
        { id: "late1", function: { name: "add", arguments: '{"a":1}' } },
        { id: "late2", function: { name: "mul", arguments: "{}" } },
      ],
    });
  });

  it("reads usage from the finish chunk as well as from a usage-only chunk with no choices", async () => {
    for (const usage of ["final", "separate"] as const) {
      const run = await requestTurn(ctx.server, [{ content: "ok", usage: { prompt: 9, completion: 1, cached: 4 }, stream: { usage } }], true);
      expect(run.turn?.usage).toEqual({ promptTokens: 9, completionTokens: 1, cachedTokens: 4 });
    }
  });

  it("reassembles arguments exactly however they are split into chunks", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: "grapheme", maxLength: 12 }), { minLength: 1, maxLength: 12 }), fc.boolean(), async (pieces, omitIndex) => {
        const run = await requestTurn(ctx.server, [{ toolCalls: [{ id: "p1", name: "add", arguments: "", argumentPieces: pieces }], stream: { omitIndex } }], true);
        const message = run.turn?.message;
        expect(message && "tool_calls" in message ? message.tool_calls[0].function.arguments : undefined).toBe(pieces.join(""));
      }),
      { numRuns: 40 },
    );
  });
});
