/**
 * One turn's tool calls: at most a bounded number run at once, and their results share one budget that
 * the executor applies with its truncation note (lowered for a known context window).
 */
import { describe, expect, it } from "vitest";
import { createToolExecutor } from "../../../src/runtime/execution/tool-executor.js";
import { DEFAULT_TURN_RESULT_CHARS, turnResultBudget } from "../../../src/runtime/compaction/turn-result-budget.js";
import { createAgent } from "../../../src/runtime/loop/agent.js";
import type { ToolContext } from "../../../src/runtime/loop/types.js";
import { fixtureDir, fixtureSchemas } from "../../fixtures/executor/schemas.js";
import { answerTurn, call, fakeExecutor, scriptedRequester, toolTurn } from "./fakes.js";

describe("a turn of many tool calls", () => {
  it("runs at most 16 at once, gives each an equal share of the budget, and answers all in call order", async () => {
    let running = 0;
    let peak = 0;
    const shares: Array<number | undefined> = [];
    const executor = fakeExecutor(async (toolCall, context: ToolContext) => {
      running += 1;
      peak = Math.max(peak, running);
      shares.push(context.maxResultChars);
      await new Promise((resolve) => setTimeout(resolve, 1));
      running -= 1;
      return { status: "ok", content: `result:${toolCall.id}` };
    });
    const calls = Array.from({ length: 100 }, (_, i) => call(`c${i}`));
    const requester = scriptedRequester([toolTurn(...calls), answerTurn("done")]);
    const agent = createAgent({ requestTurn: requester.requestTurn, executor, model: "unknown-model", workspace: "/tmp" });

    expect((await agent.run("go")).kind).toBe("answer");
    expect(peak).toBe(16);
    expect(new Set(shares)).toEqual(new Set([DEFAULT_TURN_RESULT_CHARS / 100]));
    const answered = requester.requests[1]!.messages.filter((m) => m.role === "tool").map((m) => (m.role === "tool" ? m.tool_call_id : ""));
    expect(answered).toEqual(calls.map((c) => c.id));
  });

  it("the budget is the smaller of the fixed bound and half a known window (3 characters per token)", () => {
    expect(turnResultBudget(400_000, undefined)).toBe(400_000);
    expect(turnResultBudget(400_000, 128_000)).toBe(192_000);
    expect(turnResultBudget(400_000, 1_000_000)).toBe(400_000);
  });

  it("the executor cuts a result at its share, saying the calls of the turn share one budget", async () => {
    const executor = createToolExecutor({ schemas: fixtureSchemas, schemasDir: fixtureDir });
    const context: ToolContext = { workspace: "/w", signal: new AbortController().signal, maxResultChars: 10 };
    const outcome = await executor.execute({ id: "c1", type: "function", function: { name: "repeat", arguments: '{"count":25}' } }, context);
    expect(outcome).toEqual({
      status: "ok",
      content: "xxxxxxxxxx\n[truncated: showing the first 10 of 25 characters; the calls of one turn share one budget, so fewer calls per turn get more each]",
    });
  });
});
