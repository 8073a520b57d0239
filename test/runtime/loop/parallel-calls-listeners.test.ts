/**
 * Every tool call of a turn watches the run's abort signal. However many calls a turn makes, no listener
 * may pile up on it: Node warns (`MaxListenersExceededWarning`) from 11 listeners on one signal, and
 * that warning would reach the user's stderr.
 */
import { getEventListeners } from "node:events";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAgent } from "../../../src/runtime/loop/agent.js";
import type { AgentEvent } from "../../../src/runtime/loop/agent-events.js";
import { createTurnRequester } from "../../../src/runtime/model/model-client.js";
import type { ToolExecutor } from "../../../src/runtime/loop/types.js";
import { SENTINEL_API_KEY } from "../../support/sentinel-key.js";
import { startScriptedServer, type ScriptedServer } from "../../../src/scripted-server/scripted-server.js";
import { fixtureExecutor, tempDir } from "../../cli/support.js";

const CALLS = 50;

let server: ScriptedServer;
let executor: ToolExecutor;

beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
  executor = fixtureExecutor();
});
afterAll(() => server.close());

it(`${CALLS} parallel tool calls print no MaxListenersExceededWarning and leave no listener on the run's signal`, async () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    server.setScript([
      { toolCalls: Array.from({ length: CALLS }, (_, index) => ({ id: `call_${index}`, name: "echo", arguments: { text: `n${index}` } })) },
      { content: "done" },
    ]);
    const agent = createAgent({
      requestTurn: createTurnRequester({ apiKey: SENTINEL_API_KEY, baseURL: server.baseURL, maxRetries: 0 }),
      executor,
      model: "scripted",
      workspace: tempDir(),
    });
    const signal = new AbortController().signal;
    const result = await agent.run("go", { signal });
    expect(result.kind).toBe("answer");
    expect(agent.messages.filter((message) => message.role === "tool")).toHaveLength(CALLS);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
  } finally {
    process.off("warning", onWarning);
  }
});

it(`aborting the run stops all ${CALLS} parallel calls through the one shared listener`, async () => {
  server.setScript([
    { toolCalls: Array.from({ length: CALLS }, (_, index) => ({ id: `wait_${index}`, name: "wait_for_abort", arguments: "{}" })) },
  ]);
  const controller = new AbortController();
  let started = 0;
  const events: AgentEvent[] = [];
  const agent = createAgent({
    requestTurn: createTurnRequester({ apiKey: SENTINEL_API_KEY, baseURL: server.baseURL, maxRetries: 0 }),
    executor,
    model: "scripted",
    workspace: tempDir(),
    // All of them running at once, past the default bound of 16.
    maxParallelToolCalls: CALLS,
    onEvent: (event) => {
      events.push(event);
      if (event.type === "tool_call_start" && ++started === CALLS) setImmediate(() => controller.abort());
    },
  });
  const result = await agent.run("go", { signal: controller.signal });
  expect(result.kind).toBe("interrupted");
  const ends = events.flatMap((event) => (event.type === "tool_call_end" ? [event.result.status] : []));
  expect(ends).toEqual(Array.from({ length: CALLS }, () => "aborted"));
  expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
});
