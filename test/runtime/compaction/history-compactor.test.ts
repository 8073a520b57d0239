/**
 * Compaction of a history: older tool results elided oldest first with a note, older stretches summarised
 * into one marked message, protected messages never touched, every tool call still answered, and a stop
 * when nothing more can be done. A property test drives random histories through it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyCompaction, type CompactionRecord } from "../../../src/runtime/compaction/compaction-record.js";
import { elisionNote } from "../../../src/runtime/compaction/elide-tool-results.js";
import { estimateMessagesTokens } from "../../../src/runtime/compaction/estimate-tokens.js";
import { answerReserve, createHistoryCompactor, type CompactionOutcome } from "../../../src/runtime/compaction/history-compactor.js";
import { isSummary } from "../../../src/runtime/compaction/history-parts.js";
import type { CompactionEvent } from "../../../src/runtime/loop/agent-events.js";
import type { AssistantMessage, ChatMessage, ToolCall, ToolMessage } from "../../../src/runtime/loop/messages.js";
import type { ModelTurn, TurnRequest } from "../../../src/runtime/loop/types.js";
import { findViolations } from "../../../src/scripted-server/request-rules.js";

const SYSTEM: ChatMessage = { role: "system", content: "You are terse." };

function toolCall(id: string, path = "a.txt"): ToolCall {
  return { id, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path }) } };
}

function toolTurn(ids: string[], bodyLength: number): ChatMessage[] {
  const calls = ids.map((id) => toolCall(id, `${id}.txt`));
  const assistant: AssistantMessage = { role: "assistant", content: null, tool_calls: calls as [ToolCall, ...ToolCall[]] };
  return [assistant, ...ids.map((id): ToolMessage => ({ role: "tool", tool_call_id: id, content: `${id}:`.padEnd(bodyLength, "x") }))];
}

function setup(history: ChatMessage[], contextWindow: number | undefined, summary = "short summary") {
  const events: CompactionEvent[] = [];
  const records: CompactionRecord[] = [];
  const summaryRequests: TurnRequest[] = [];
  const compactor = createHistoryCompactor({
    contextWindow,
    model: "m",
    stream: false,
    tools: [],
    history,
    requestTurn: async (request): Promise<ModelTurn> => {
      summaryRequests.push(request);
      return { message: { role: "assistant", content: summary }, finishReason: "stop", usage: { promptTokens: 7, completionTokens: 3 } };
    },
    onCompaction: (event, record) => {
      events.push(event);
      records.push(structuredClone(record));
    },
  });
  const usage = { promptTokens: 0, completionTokens: 0 };
  return { compactor, events, records, summaryRequests, usage, signal: new AbortController().signal };
}

function strictProblems(messages: readonly ChatMessage[]): string[] {
  return findViolations({ model: "m", messages });
}

describe("eliding older tool results", () => {
  it("elides oldest first and stops as soon as the request fits; the prefix before it and the current turn stay", async () => {
    const prompt: ChatMessage = { role: "user", content: "read the files" };
    const history: ChatMessage[] = [SYSTEM, prompt, ...toolTurn(["a"], 30_000), ...toolTurn(["b"], 30_000), ...toolTurn(["c"], 30_000), ...toolTurn(["d"], 30_000)];
    const original = structuredClone(history);
    // Room for two of the four bodies (10,000 tokens each) plus the reserve.
    const window = 28_000;
    const { compactor, events, records, usage, signal } = setup(history, window);

    expect(await compactor.fitWindow(prompt, signal, usage)).toEqual({ kind: "compacted" });

    expect(history.slice(0, 3)).toEqual(original.slice(0, 3));
    expect(history[3]).toEqual({ role: "tool", tool_call_id: "a", content: elisionNote("read_file", '{"path":"a.txt"}', 30_000) });
    expect(history[5]).toEqual({ role: "tool", tool_call_id: "b", content: elisionNote("read_file", '{"path":"b.txt"}', 30_000) });
    expect(history.slice(6)).toEqual(original.slice(6));
    expect(elisionNote("read_file", '{"path":"a.txt"}', 30_000)).toBe(
      '[result elided to fit the context window: read_file({"path":"a.txt"}) returned 30,000 characters here. Call the tool again to see it.]',
    );
    expect(estimateMessagesTokens(history)).toBeLessThanOrEqual(window - answerReserve(window));
    expect(events).toEqual([expect.objectContaining({ type: "compaction", step: "elide", reason: "window", messages: 2, contextWindow: window })]);
    expect(events[0]!.tokensAfter).toBeLessThan(events[0]!.tokensBefore);
    expect(strictProblems(history)).toEqual([]);

    const replayed = structuredClone(original);
    expect(applyCompaction(replayed, records[0]!, () => undefined)).toBeUndefined();
    expect(replayed).toEqual(history);
  });

  it("never elides the current turn's results, even when they alone do not fit", async () => {
    const prompt: ChatMessage = { role: "user", content: "go" };
    const history: ChatMessage[] = [SYSTEM, prompt, ...toolTurn(["a", "b"], 40_000)];
    const original = structuredClone(history);
    const { compactor, usage, signal } = setup(history, 16_000);
    const outcome = await compactor.fitWindow(prompt, signal, usage);
    expect(outcome.kind).toBe("does_not_fit");
    expect(history).toEqual(original);
  });
});

describe("summarising older messages", () => {
  it("replaces the oldest stretch with one marked message made by the model; system, prompt and latest turn stay", async () => {
    const rounds: ChatMessage[] = [];
    for (let i = 0; i < 8; i += 1) rounds.push({ role: "user", content: `question ${i} `.padEnd(6_000, "q") }, { role: "assistant", content: `answer ${i} `.padEnd(6_000, "a") });
    const prompt: ChatMessage = { role: "user", content: "and now?" };
    const history: ChatMessage[] = [SYSTEM, ...rounds, prompt];
    const { compactor, events, summaryRequests, usage, signal } = setup(history, 40_000, "They asked eight questions.");

    expect(await compactor.fitWindow(prompt, signal, usage)).toEqual({ kind: "compacted" });

    expect(summaryRequests).toHaveLength(1);
    expect(summaryRequests[0]!.tools).toEqual([]);
    expect(summaryRequests[0]!.messages[1]!.content).toContain("question 0");
    expect(history[0]).toEqual(SYSTEM);
    expect(history.at(-1)).toBe(prompt);
    expect(history.at(-2)).toEqual(rounds.at(-1));
    expect(history).toHaveLength(4);
    expect(isSummary(history[1]!)).toBe(true);
    expect(history[1]!.content).toContain("They asked eight questions.");
    expect(events.map((e) => [e.step, e.messages])).toEqual([["summarize", 15]]);
    expect(usage).toEqual({ promptTokens: 7, completionTokens: 3 });
  });

  it("after a refusal with no window known: elides everything older first, then summarises, then stops", async () => {
    const prompt: ChatMessage = { role: "user", content: "go on" };
    const history: ChatMessage[] = [SYSTEM, { role: "user", content: "start" }, ...toolTurn(["a"], 5_000), { role: "assistant", content: "done".padEnd(3_000, ".") }, prompt];
    const { compactor, events, usage, signal } = setup(history, undefined);
    const sizes = [estimateMessagesTokens(history)];
    const outcomes: CompactionOutcome[] = [];
    for (let i = 0; i < 3; i += 1) {
      outcomes.push(await compactor.shrinkAfterRefusal(prompt, signal, usage));
      sizes.push(estimateMessagesTokens(history));
    }
    expect(outcomes.map((o) => o.kind)).toEqual(["compacted", "compacted", "does_not_fit"]);
    expect(sizes[1]).toBeLessThan(sizes[0]!);
    expect(sizes[2]).toBeLessThan(sizes[1]!);
    expect(events.map((e) => [e.step, e.reason])).toEqual([
      ["elide", "refused"],
      ["summarize", "refused"],
    ]);
    // The previous answer is the latest assistant turn: protected with the prompt and the system prompt.
    expect(history.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(strictProblems(history)).toEqual([]);
  });
});

/** A random valid history: rounds of a prompt, tool turns and an answer; the last round may end mid-tools. */
const historyArbitrary = fc
  .array(
    fc.record({
      prompt: fc.string({ maxLength: 3_000 }),
      turns: fc.array(fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 4 }), { maxLength: 3 }),
      answer: fc.option(fc.string({ maxLength: 3_000 }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((rounds) => {
    const history: ChatMessage[] = [SYSTEM];
    let prompt: ChatMessage = SYSTEM;
    let id = 0;
    rounds.forEach((round, r) => {
      prompt = { role: "user", content: `prompt ${r} ${round.prompt}` };
      history.push(prompt);
      for (const bodies of round.turns) {
        const ids = bodies.map(() => `call_${(id += 1)}`);
        const turn = toolTurn(ids, 0);
        bodies.forEach((length, i) => ((turn[i + 1] as ToolMessage).content = "r".repeat(length)));
        history.push(...turn);
      }
      const last = r === rounds.length - 1;
      if (!last || round.answer !== undefined) history.push({ role: "assistant", content: round.answer ?? "ok" });
    });
    return { history, prompt };
  });

describe("property: compaction keeps a history every gateway accepts", () => {
  it("random histories, once compacted, keep every tool call answered and the protected messages intact", async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.integer({ min: 2_000, max: 60_000 }), fc.boolean(), async ({ history, prompt }, window, refused) => {
        const original = structuredClone(history);
        const lastAssistant = history.map((m) => m.role).lastIndexOf("assistant");
        const protectedTail = lastAssistant === -1 ? [] : structuredClone(history.slice(lastAssistant));
        const promptIndex = history.lastIndexOf(prompt);
        const { compactor, records, signal, usage } = setup(history, refused ? undefined : window);
        const before = estimateMessagesTokens(history);

        const outcome = refused ? await compactor.shrinkAfterRefusal(prompt, signal, usage) : await compactor.fitWindow(prompt, signal, usage);

        expect(strictProblems(history)).toEqual([]);
        expect(history[0]).toEqual(SYSTEM);
        expect(history).toContain(prompt);
        if (lastAssistant > promptIndex) expect(history.slice(history.length - protectedTail.length)).toEqual(protectedTail);
        else expect(history.slice(history.indexOf(prompt) - (promptIndex - lastAssistant))).toEqual([...protectedTail.slice(0, promptIndex - lastAssistant), prompt]);
        if (outcome.kind === "compacted") expect(estimateMessagesTokens(history)).toBeLessThan(before);
        if (!refused && outcome.kind !== "does_not_fit") expect(estimateMessagesTokens(history)).toBeLessThanOrEqual(window - answerReserve(window));
        if (outcome.kind === "does_not_fit" || outcome.kind === "fits") expect(records.length === 0 || outcome.kind === "does_not_fit").toBe(true);

        const replayed = structuredClone(original);
        for (const record of records) expect(applyCompaction(replayed, record, () => undefined)).toBeUndefined();
        expect(replayed).toEqual(history);
      }),
      { numRuns: 150 },
    );
  });
});
