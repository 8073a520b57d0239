import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAgent, type AgentOptions } from "../../../src/runtime/loop/agent.js";
import type { AgentEvent } from "../../../src/runtime/loop/agent-events.js";
import { INTERRUPTED_TOOL_RESULT } from "../../../src/runtime/loop/interrupted-tool-calls.js";
import type { ChatMessage } from "../../../src/runtime/loop/messages.js";
import type { ModelTurn } from "../../../src/runtime/loop/types.js";
import { answerTurn, call, fakeExecutor, historyProblems, scriptedRequester, toolTurn, turnWith } from "./fakes.js";

function agentWith(turns: Parameters<typeof scriptedRequester>[0], extra: Partial<AgentOptions> & { executor?: ReturnType<typeof fakeExecutor> } = {}) {
  const requester = scriptedRequester(turns);
  const executor = extra.executor ?? fakeExecutor();
  const written: ChatMessage[] = [];
  const events: AgentEvent[] = [];
  const agent = createAgent({
    requestTurn: requester.requestTurn,
    executor,
    model: "m",
    systemPrompt: "sys",
    workspace: "/tmp",
    transcript: { append: (message) => written.push(structuredClone(message)) },
    onEvent: (event) => events.push(event),
    ...extra,
  });
  return { agent, requests: requester.requests, written, events, executor };
}

describe("the loop", () => {
  it("answers in one turn; history and transcript are system, user, answer", async () => {
    const { agent, requests, written } = agentWith([answerTurn("done")]);
    const result = await agent.run("hello");
    expect(result).toMatchObject({ kind: "answer", answer: "done", turns: 1 });
    const expected = [
      { role: "system", content: "sys" },
      { role: "user", content: "hello" },
      { role: "assistant", content: "done" },
    ];
    expect(agent.messages).toEqual(expected);
    expect(written).toEqual(expected);
    expect(requests[0]?.messages).toEqual(expected.slice(0, 2));
  });

  it("answers every call once in call order before the next request, and sends the same tools each time", async () => {
    const { agent, requests, written } = agentWith([toolTurn(call("a"), call("b")), toolTurn(call("c")), answerTurn("ok")]);
    const result = await agent.run("go");
    expect(result).toMatchObject({ kind: "answer", answer: "ok", turns: 3, usage: { promptTokens: 30, completionTokens: 7, cachedTokens: 8 } });
    expect(requests[1]?.messages.slice(2)).toEqual([
      toolTurn(call("a"), call("b")).message,
      { role: "tool", tool_call_id: "a", content: "result:a" },
      { role: "tool", tool_call_id: "b", content: "result:b" },
    ]);
    expect(requests.map((r) => JSON.stringify(r.tools))).toEqual(Array(3).fill(JSON.stringify(requests[0]?.tools)));
    // Append-only: each request starts with the whole previous one.
    expect(requests[2]?.messages.slice(0, requests[1]!.messages.length)).toEqual(requests[1]?.messages);
    expect(written).toEqual(agent.messages);
    expect(historyProblems(agent.messages)).toEqual([]);
  });

  it("runs parallel calls concurrently and keeps results in call order", async () => {
    let started = 0;
    let releaseAll: () => void = () => {};
    const allStarted = new Promise<void>((resolve) => (releaseAll = resolve));
    const executor = fakeExecutor(async (toolCall) => {
      started += 1;
      if (started === 3) releaseAll();
      // Every call waits until all three have started: this only finishes if they run concurrently.
      await allStarted;
      if (toolCall.id === "first") await new Promise((resolve) => setImmediate(resolve));
      return { status: "ok", content: `r-${toolCall.id}` };
    });
    const { agent } = agentWith([toolTurn(call("first"), call("second"), call("third")), answerTurn("x")], { executor });
    await agent.run("go");
    expect(agent.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["r-first", "r-second", "r-third"]);
  });

  it("discards a `length` turn (no tools run, not in history) and sends the same request again", async () => {
    const cut = turnWith({ role: "assistant", content: "trunc", tool_calls: [call("x")] }, "length");
    const { agent, requests, executor, events } = agentWith([cut, answerTurn("fine")]);
    const result = await agent.run("go");
    expect(result).toMatchObject({ kind: "answer", answer: "fine", turns: 2 });
    expect(executor.calls).toEqual([]);
    expect(requests[1]?.messages).toEqual(requests[0]?.messages);
    expect(agent.messages.map((m) => m.content)).toEqual(["sys", "go", "fine"]);
    expect(events).toContainEqual({ type: "length_retry", turn: 1, attempt: 1, maxRetries: 2 });
  });

  it("stops clearly after the bounded number of `length` retries", async () => {
    const cut = turnWith({ role: "assistant", content: "trunc" }, "length");
    const { agent, requests } = agentWith([cut, cut, cut, cut], { maxLengthRetries: 2 });
    const result = await agent.run("go");
    expect(result).toMatchObject({ kind: "length_exhausted", attempts: 3, turns: 3 });
    expect(requests).toHaveLength(3);
    expect(agent.messages.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("stops on content_filter and on an unknown finish reason without running tools", async () => {
    for (const [reason, kind] of [["content_filter", "content_filter"], ["weird_reason", "unknown_finish"]] as const) {
      const { agent, executor } = agentWith([turnWith({ role: "assistant", content: null, tool_calls: [call("x")] }, reason)]);
      const result = await agent.run("go");
      expect(result.kind).toBe(kind);
      expect(executor.calls).toEqual([]);
      expect(agent.messages.map((m) => m.role)).toEqual(["system", "user"]);
    }
  });

  it("stops at max turns (one model request each) with every call answered", async () => {
    const { agent, requests } = agentWith([toolTurn(call("1")), toolTurn(call("2")), toolTurn(call("3"))], { maxTurns: 3 });
    const result = await agent.run("go");
    expect(result).toMatchObject({ kind: "max_turns", turns: 3, maxTurns: 3 });
    expect(requests).toHaveLength(3);
    expect(agent.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "3", content: "result:3" });
  });

  it("ends with api_error carrying the client's kind, status and hint", async () => {
    const failure = Object.assign(new Error("Incorrect API key"), { kind: "http", status: 401, hint: "set OPENAI_API_KEY" });
    const { agent, written } = agentWith([failure]);
    const result = await agent.run("go");
    expect(result).toMatchObject({ kind: "api_error", error: { kind: "http", status: 401, message: "Incorrect API key", hint: "set OPENAI_API_KEY" } });
    expect(written.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("keeps history across runs (the interactive chat)", async () => {
    const { agent, requests } = agentWith([answerTurn("one"), answerTurn("two")]);
    await agent.run("first");
    await agent.run("second");
    expect(requests[1]?.messages.map((m) => m.content)).toEqual(["sys", "first", "one", "second"]);
  });
});

describe("hooks", () => {
  it("beforeToolCall can block a call: the tool does not run and the model reads why", async () => {
    const { agent, executor } = agentWith([toolTurn(call("a"), call("b", "echo", '{"text":"rm"}')), answerTurn("ok")], {
      beforeToolCall: (toolCall) => (toolCall.function.arguments.includes("rm") ? { block: "not allowed here" } : undefined),
    });
    await agent.run("go");
    expect(executor.calls.map((c) => c.id)).toEqual(["a"]);
    expect(agent.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["result:a", "Tool call blocked: not allowed here"]);
  });

  it("afterToolCall can rewrite a result", async () => {
    const { agent, events } = agentWith([toolTurn(call("a")), answerTurn("ok")], {
      afterToolCall: (_call, result) => ({ ...result, content: result.content.toUpperCase() }),
    });
    await agent.run("go");
    expect(agent.messages.find((m) => m.role === "tool")?.content).toBe("RESULT:A");
    expect(events).toContainEqual({ type: "tool_call_end", turn: 1, call: call("a"), result: { status: "ok", content: "RESULT:A" } });
  });

  it("a hook that throws becomes an error result for that call and the run goes on", async () => {
    const { agent, executor } = agentWith([toolTurn(call("a"), call("b")), answerTurn("ok")], {
      beforeToolCall: async (toolCall) => {
        if (toolCall.id === "a") throw new TypeError("boom");
      },
      afterToolCall: (toolCall) => {
        if (toolCall.id === "b") throw new Error("bang");
      },
    });
    const result = await agent.run("go");
    expect(result.kind).toBe("answer");
    expect(executor.calls.map((c) => c.id)).toEqual(["b"]);
    const contents = agent.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(contents[0]).toContain("beforeToolCall hook failed (TypeError: boom)");
    expect(contents[1]).toContain("afterToolCall hook failed (Error: bang)");
  });

  it("an onEvent listener that throws does not break the run", async () => {
    const { agent } = agentWith([toolTurn(call("a")), answerTurn("ok")], { onEvent: () => { throw new Error("listener"); } });
    expect((await agent.run("go")).kind).toBe("answer");
  });
});

describe("interruption and resume", () => {
  it("an abort during the request ends `interrupted` with nothing made up in history", async () => {
    const controller = new AbortController();
    const hang = (request: { signal: AbortSignal }) =>
      new Promise<ModelTurn>((_, reject) => {
        request.signal.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { kind: "aborted" })));
        controller.abort();
      });
    const { agent, written } = agentWith([hang]);
    const result = await agent.run("go", { signal: controller.signal });
    expect(result.kind).toBe("interrupted");
    expect(written.map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("an abort during tools keeps only the results finished before the first aborted call; resume answers the rest as interrupted", async () => {
    const controller = new AbortController();
    const executor = fakeExecutor(async (toolCall, context) => {
      if (toolCall.id === "a") return { status: "ok", content: "done-a" };
      controller.abort();
      if (!context.signal.aborted) await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
      return { status: "aborted", content: "aborted" };
    });
    const { agent, written } = agentWith([toolTurn(call("a"), call("b"), call("c"))], { executor });
    const result = await agent.run("go", { signal: controller.signal });
    expect(result.kind).toBe("interrupted");
    expect(written.slice(2).map((m) => m.role)).toEqual(["assistant", "tool"]);

    const resumed = agentWith([answerTurn("after")], { history: written, systemPrompt: "ignored" });
    const events = resumed.events;
    expect((await resumed.agent.run("again")).kind).toBe("answer");
    expect(resumed.requests[0]?.messages).toEqual([
      ...written,
      { role: "tool", tool_call_id: "b", content: INTERRUPTED_TOOL_RESULT },
      { role: "tool", tool_call_id: "c", content: INTERRUPTED_TOOL_RESULT },
      { role: "user", content: "again" },
    ]);
    expect(resumed.written.map((m) => m.role)).toEqual(["tool", "tool", "user", "assistant"]);
    expect(events).toContainEqual({ type: "interrupted_calls_answered", toolCallIds: ["b", "c"] });
  });
});

describe("property: no sequence of model turns breaks the loop", () => {
  const arbCall = fc.record({ id: fc.constantFrom("c1", "c2", "c3", "dup"), name: fc.string(), args: fc.string() });
  const arbTurn = fc.oneof(
    fc.record({ kind: fc.constant("answer" as const), text: fc.string(), reason: fc.constantFrom("stop", "tool_calls") }),
    fc.record({ kind: fc.constant("tools" as const), calls: fc.array(arbCall, { minLength: 1, maxLength: 4 }), reason: fc.constantFrom("stop", "tool_calls", "length", "content_filter", "eos", "") }),
    fc.record({ kind: fc.constant("error" as const) }),
  );

  it("always ends with a result, and every request it sent was a valid history", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbTurn, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 8 }), async (script, maxTurns) => {
        const turns = script.map((step): ModelTurn | Error => {
          if (step.kind === "error") return Object.assign(new Error("x"), { kind: "http", status: 500 });
          if (step.kind === "answer") return turnWith({ role: "assistant", content: step.text }, step.reason);
          const [first, ...rest] = step.calls.map((c) => call(c.id, c.name, c.args));
          return turnWith({ role: "assistant", content: null, tool_calls: [first!, ...rest] }, step.reason);
        });
        const { agent, requests, written } = agentWith([...turns, answerTurn("end")], { maxTurns });
        const result = await agent.run("go");
        expect(["answer", "max_turns", "length_exhausted", "content_filter", "unknown_finish", "api_error"]).toContain(result.kind);
        for (const request of requests) expect(historyProblems(request.messages)).toEqual([]);
        expect(written).toEqual(agent.messages);
        expect(requests.length).toBeLessThanOrEqual(maxTurns);
      }),
      { numRuns: 200 },
    );
  });
});

describe("a transcript sink that fails", () => {
  it("gets no further messages after its first failure, is reported, and the run still answers", async () => {
    const written: ChatMessage[] = [];
    let calls = 0;
    const { agent, events } = agentWith([toolTurn(call("a")), answerTurn("ok")], {
      transcript: {
        append: (message) => {
          calls += 1;
          if (calls === 3) throw new Error("ENOSPC: no space left on device");
          written.push(message);
        },
      },
    });
    expect((await agent.run("go")).kind).toBe("answer");
    expect(written.map((m) => m.role)).toEqual(["system", "user"]);
    expect(calls).toBe(3);
    expect(events).toContainEqual({ type: "transcript_failed", error: "Error: ENOSPC: no space left on device" });
  });
});
