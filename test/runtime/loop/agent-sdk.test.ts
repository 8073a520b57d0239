/**
 * The loop through the real stack, on every dialect: the real SDK client (`openai` for Chat Completions
 * and Responses, `@anthropic-ai/sdk` for Anthropic Messages), the real executor with the fixture tools,
 * and the strict scripted server (400 on any history a picky gateway refuses).
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, type AgentOptions } from "../../../src/runtime/loop/agent.js";
import type { AgentEvent } from "../../../src/runtime/loop/agent-events.js";
import { loadSchemas } from "../../../src/runtime/execution/load-schemas.js";
import { createToolExecutor } from "../../../src/runtime/execution/tool-executor.js";
import type { ToolExecutor } from "../../../src/runtime/loop/types.js";
import { SENTINEL_API_KEY } from "../../support/sentinel-key.js";
import { startScriptedServer, type ScriptedServer } from "../../../src/scripted-server/scripted-server.js";
import { tempDir, writeFixtureSchemas } from "../../cli/support.js";
import { historyProblems } from "./fakes.js";
import { DIALECTS } from "../model-client/harness.js";

let server: ScriptedServer;
let executor: ToolExecutor;

beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
  const file = writeFixtureSchemas(tempDir());
  const loaded = loadSchemas(file);
  if (!loaded.ok) throw new Error(loaded.error.message);
  executor = createToolExecutor({ schemas: loaded.schemas, schemasDir: path.dirname(file), timeoutMs: 5_000 });
});
afterAll(() => server.close());

/** Arguments `""` reach history as they came, but Anthropic's `tool_use.input` is always an object: `{}`. */
const EMPTY_ARGUMENTS = { chat: "", anthropic: "{}", responses: "" };

describe.each(DIALECTS)("$name", (dialect) => {
function agent(extra: Partial<AgentOptions> = {}) {
  const events: AgentEvent[] = [];
  const created = createAgent({
    requestTurn: dialect.create({ apiKey: SENTINEL_API_KEY, baseURL: dialect.endpoint(server), maxRetries: 2, idleTimeoutMs: 2_000 }),
    executor,
    model: "scripted",
    systemPrompt: "sys",
    workspace: tempDir(),
    onEvent: (event) => events.push(event),
    ...extra,
  });
  return { agent: created, events };
}

it("parallel calls streamed in small chunks with provider quirks: each answered once, in call order; tools identical on every request", async () => {
  const start = server.requests.length;
  server.setScript([
    {
      content: "Working.",
      toolCalls: [
        { id: "p1", name: "echo", arguments: '{"text":"one"}' },
        { id: "p2", name: "fail", arguments: "" },
      ],
      stream: { chunkSize: 3, lateName: true },
    },
    {
      toolCalls: [
        { id: "p3", name: "echo", arguments: { text: "three" } },
        { id: "p4", name: "no_such_tool", arguments: "{}" },
      ],
      finishReason: "stop",
      stream: { omitIndex: true },
    },
    { content: "All done.", usage: { prompt: 100, completion: 4, cached: 64 } },
  ]);
  const { agent: a } = agent();
  const result = await a.run("go");
  expect(result).toMatchObject({ kind: "answer", answer: "All done.", turns: 3, usage: { cachedTokens: 64 } });
  const requests = server.requests.slice(start);
  expect(requests.map((r) => r.violations)).toEqual([[], [], []]);
  expect(requests.flatMap((r) => r.flags)).toEqual([]);
  expect(new Set(requests.map((r) => JSON.stringify(r.body?.tools))).size).toBe(1);
  const tools = a.messages.filter((m) => m.role === "tool");
  expect(tools.map((m) => m.tool_call_id)).toEqual(["p1", "p2", "p3", "p4"]);
  expect(tools[0]?.content).toBe("echo: one");
  expect(tools[1]?.content).toContain("The tool fail itself failed: RangeError: fixture failure");
  expect(tools[2]?.content).toBe("echo: three");
  expect(tools[3]?.content).toContain('There is no tool named "no_such_tool"');
  expect(a.messages[2]).toEqual({
    role: "assistant",
    content: "Working.",
    tool_calls: [
      { id: "p1", type: "function", function: { name: "echo", arguments: '{"text":"one"}' } },
      { id: "p2", type: "function", function: { name: "fail", arguments: EMPTY_ARGUMENTS[dialect.name] } },
    ],
  });
  // Arguments sent as an object are sent back as their JSON string.
  expect(a.messages[5]).toMatchObject({ tool_calls: [{ id: "p3", function: { arguments: '{"text":"three"}' } }, { id: "p4" }] });
  expect(historyProblems(a.messages)).toEqual([]);
});

it("a `length` turn with tool calls is discarded and the identical request sent again", async () => {
  const start = server.requests.length;
  server.setScript([
    { toolCalls: [{ id: "x", name: "echo", arguments: '{"text":"cut' }], finishReason: "length" },
    { content: "short answer" },
  ]);
  const { agent: a, events } = agent({ stream: false });
  expect(await a.run("go")).toMatchObject({ kind: "answer", answer: "short answer" });
  const [first, second] = server.requests.slice(start);
  expect(second?.rawBody).toBe(first?.rawBody);
  expect(events.some((e) => e.type === "tool_call_start")).toBe(false);
});

it("a hook blocks a call through the real stack; the model reads why", async () => {
  server.setScript([{ toolCalls: [{ id: "b1", name: "echo", arguments: '{"text":"secret"}' }] }, { content: "ok" }]);
  const { agent: a } = agent({ beforeToolCall: (call) => (call.function.arguments.includes("secret") ? { block: "no secrets" } : undefined) });
  await a.run("go");
  expect(a.messages.find((m) => m.role === "tool")?.content).toBe("Tool call blocked: no secrets");
});

it("a broken response is dropped whole and retried: nothing half-made in history, streamed text not taken for the answer", async () => {
  server.setScript([{ fault: "cut", reply: { content: "a partial answer that must never be taken" }, afterEvents: 2 }, { content: "the real answer" }]);
  const { agent: a } = agent();
  expect(await a.run("go")).toMatchObject({ kind: "answer", answer: "the real answer" });
  expect(a.messages.map((m) => m.content)).toEqual(["sys", "go", "the real answer"]);
});

it("aborting mid-stream ends `interrupted` with only the prompt added", async () => {
  const start = server.requests.length;
  server.setScript([{ fault: "stall", reply: { content: "never finished" } }]);
  const controller = new AbortController();
  const { agent: a } = agent();
  const running = a.run("go", { signal: controller.signal });
  await server.waitForRequests(start + 1);
  controller.abort();
  expect((await running).kind).toBe("interrupted");
  expect(a.messages.map((m) => m.role)).toEqual(["system", "user"]);
});
});
