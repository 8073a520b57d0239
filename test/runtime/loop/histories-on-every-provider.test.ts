/**
 * One history, every provider: a conversation started on one dialect resumes on another (what only the
 * first provider can read is left out, and the strict scripted server accepts what is sent), the
 * transcript keeps provider parts and result statuses across a resume, and (property) any history the
 * loop builds maps, on each dialect, to a request the strict scripted server accepts.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/runtime/loop/agent.js";
import type { ChatMessage, ProviderPart, ToolResultStatus } from "../../../src/runtime/loop/messages.js";
import { openTranscript, readTranscript } from "../../../src/runtime/loop/transcript.js";
import { createAnthropicTurnRequester } from "../../../src/runtime/model/anthropic/anthropic-client.js";
import { startScriptedServer, type ScriptedServer } from "../../../src/scripted-server/scripted-server.js";
import { SENTINEL_API_KEY } from "../../support/sentinel-key.js";
import { fixtureExecutor, tempDir } from "../../cli/support.js";
import { DIALECTS, type TestDialect } from "../model-client/harness.js";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
});
afterAll(() => server.close());

const executor = fixtureExecutor();

function requesterFor(dialect: TestDialect) {
  return dialect.create({ apiKey: SENTINEL_API_KEY, baseURL: dialect.endpoint(server), maxRetries: 0, idleTimeoutMs: 2_000 });
}

/** A conversation on Anthropic with thinking, a tool call with a Kimi-style id, and a failed result. */
async function anthropicConversation(): Promise<ChatMessage[]> {
  server.setScript([
    { thinking: "Echo first.", toolCalls: [{ id: "toolu_a1", name: "echo", arguments: { text: "one" } }, { id: "toolu_a2", name: "fail", arguments: {} }] },
    { content: "Echoed." },
  ]);
  const agent = createAgent({
    requestTurn: createAnthropicTurnRequester({ apiKey: SENTINEL_API_KEY, baseURL: server.url, thinkingBudget: 1024, maxRetries: 0 }),
    executor,
    model: "claude-test",
    systemPrompt: "sys",
    workspace: tempDir(),
  });
  expect(await agent.run("echo one")).toMatchObject({ kind: "answer" });
  return [...agent.messages];
}

describe("a transcript moved between providers", () => {
  it("keeps thinking parts and non-ok statuses on disk, and an old transcript without them still resumes", async () => {
    const history = await anthropicConversation();
    const file = path.join(tempDir(), "t.jsonl");
    const writer = openTranscript(file);
    history.forEach((message) => writer.append(message));
    writer.close();
    const read = readTranscript(file);
    expect(read).toMatchObject({ ok: true, warnings: [] });
    expect(read.ok && read.messages).toEqual(history);
    expect(history[2]).toMatchObject({ parts: [{ provider: "anthropic", block: { type: "thinking", thinking: "Echo first." } }] });
    expect(history[4]).toMatchObject({ role: "tool", tool_call_id: "toolu_a2", status: "tool_error" });
    expect(history[3]).not.toHaveProperty("status");
    const old = path.join(tempDir(), "old.jsonl");
    writeFileSync(old, `${JSON.stringify({ role: "user", content: "hi" })}\n${JSON.stringify({ role: "assistant", content: "hello" })}\n`);
    expect(readTranscript(old)).toMatchObject({ ok: true, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] });
  });

  it.each(DIALECTS.map((dialect) => [dialect.name, dialect] as const))("an Anthropic conversation resumes on %s: accepted by the strict server, another provider's parts left out", async (_name, dialect) => {
    const history = await anthropicConversation();
    server.setScript([{ content: "resumed" }]);
    const before = server.requests.length;
    const agent = createAgent({ requestTurn: requesterFor(dialect), executor, model: "m", workspace: tempDir(), history });
    expect(await agent.run("and now?")).toMatchObject({ kind: "answer", answer: "resumed" });
    const request = server.requests[before];
    expect(request?.violations).toEqual([]);
    if (dialect.name === "anthropic") expect(request?.rawBody).toContain("Echo first.");
    else expect(request?.rawBody).not.toContain("Echo first.");
    // The failed call stays a failure where the dialect can say so.
    if (dialect.name === "anthropic") expect(request?.rawBody).toContain('"is_error":true');
  });
});

const STATUSES: ToolResultStatus[] = ["invalid_arguments", "unknown_tool", "tool_error", "timeout", "aborted", "blocked", "hook_error"];

/** A part of a provider other than `target` (the target's own parts come only from its server, signed). */
function foreignPart(target: TestDialect["name"]): fc.Arbitrary<ProviderPart> {
  const anthropic = fc.record({ provider: fc.constant("anthropic" as const), block: fc.record({ type: fc.constant("thinking"), thinking: fc.string(), signature: fc.base64String() }) });
  const responses = fc.record({ provider: fc.constant("responses" as const), item: fc.record({ type: fc.constant("reasoning"), id: fc.constant("rs_x"), summary: fc.constant([]), encrypted_content: fc.base64String() }) });
  if (target === "anthropic") return responses;
  if (target === "responses") return anthropic;
  return fc.oneof(anthropic, responses);
}

/** Histories as the loop builds them: prompts, tool turns answered in call order (ids unique), answers. */
function loopHistory(target: TestDialect["name"]): fc.Arbitrary<ChatMessage[]> {
  const text = fc.string({ maxLength: 30 });
  const prompt = fc.string({ minLength: 1, maxLength: 30 }).map((value) => (value.trim() === "" ? `p${value}` : value));
  const call = fc.record({ name: fc.constantFrom("echo", "fail", "missing_tool_name"), arguments: fc.oneof(fc.constant("{}"), fc.json(), fc.string()) });
  const toolTurn = fc.record({ content: fc.option(text), calls: fc.array(call, { minLength: 1, maxLength: 3 }), parts: fc.array(foreignPart(target), { maxLength: 2 }), statuses: fc.array(fc.option(fc.constantFrom(...STATUSES)), { minLength: 3, maxLength: 3 }) });
  const round = fc.record({ prompt, tools: fc.array(toolTurn, { maxLength: 2 }), answer: fc.option(text) });
  const idText = fc.oneof(fc.stringMatching(/^[a-zA-Z0-9_.:-]{1,20}$/), fc.string({ minLength: 1, maxLength: 12 }));
  return fc.tuple(fc.array(round, { minLength: 1, maxLength: 3 }), fc.array(idText, { minLength: 20, maxLength: 20 })).map(([rounds, ids]) => {
    const history: ChatMessage[] = [{ role: "system", content: "sys" }];
    let next = 0;
    // Unique across the history: what the loop keeps unique (normalize-turn.ts) plus a counter.
    const id = () => `${ids[next % ids.length] ?? "c"}#${(next += 1)}`;
    for (const [index, r] of rounds.entries()) {
      history.push({ role: "user", content: r.prompt });
      for (const turn of r.tools) {
        const calls = turn.calls.map((c) => ({ id: id(), type: "function" as const, function: { name: c.name, arguments: c.arguments } }));
        const [first, ...rest] = calls;
        if (first === undefined) continue;
        history.push({ role: "assistant", content: turn.content, tool_calls: [first, ...rest], ...(turn.parts.length > 0 ? { parts: turn.parts } : {}) });
        calls.forEach((c, i) => {
          const status = turn.statuses[i];
          history.push({ role: "tool", tool_call_id: c.id, content: `result ${i}`, ...(status ? { status } : {}) });
        });
      }
      // The last round ends on the prompt or the tool results: the request being made.
      if (r.answer !== null && index < rounds.length - 1) history.push({ role: "assistant", content: r.answer });
    }
    return history;
  });
}

describe.each(DIALECTS)("property on $name", (dialect) => {
  it("any history the loop builds maps to a request the strict scripted server accepts", async () => {
    await fc.assert(
      fc.asyncProperty(loopHistory(dialect.name), async (history) => {
        server.setScript([{ content: "ok" }]);
        const before = server.requests.length;
        const turn = await requesterFor(dialect)({ model: "m", messages: history, tools: executor.definitions, stream: false, signal: new AbortController().signal });
        expect(server.requests[before]?.violations).toEqual([]);
        expect(turn.message.content).toBe("ok");
      }),
      { numRuns: 40 },
    );
  });
});
