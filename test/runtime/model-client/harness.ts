/**
 * One scripted server per test file and a requester with test-sized timeouts aimed at it, in any of the
 * three dialects (`DIALECTS`): the same tests run on Chat Completions, Anthropic Messages and Responses.
 */
import { afterAll, beforeAll } from "vitest";
import { createTurnRequester, type RetryInfo, type TurnRequesterSettings } from "../../../src/runtime/model/model-client.js";
import { createAnthropicTurnRequester } from "../../../src/runtime/model/anthropic/anthropic-client.js";
import { createResponsesTurnRequester } from "../../../src/runtime/model/responses/responses-client.js";
import type { TurnRequester } from "../../../src/runtime/loop/types.js";
import { ModelRequestError } from "../../../src/runtime/model/model-errors.js";
import type { ChatMessage } from "../../../src/runtime/loop/messages.js";
import type { ModelTurn, TurnRequest } from "../../../src/runtime/loop/types.js";
import type { ToolDefinition } from "../../../src/shared/schemas-file.js";
import { SENTINEL_API_KEY } from "../../support/sentinel-key.js";
import { startScriptedServer, type Script, type ScriptedServer } from "../../../src/scripted-server/scripted-server.js";

export const API_KEY = SENTINEL_API_KEY;

export const TOOLS: ToolDefinition[] = [
  {
    type: "function",
    function: {
      name: "add",
      description: "Adds two numbers.",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    },
  },
];

export const PROMPT: ChatMessage[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "add 1 and 2" },
];

/** Starts the file's server before its tests and closes it after. */
export function useScriptedServer(): { readonly server: ScriptedServer } {
  const holder: { server?: ScriptedServer } = {};
  beforeAll(async () => {
    holder.server = await startScriptedServer({ script: [], apiKey: API_KEY });
  });
  afterAll(async () => {
    await holder.server?.close();
  });
  return {
    get server() {
      if (!holder.server) throw new Error("server not started");
      return holder.server;
    },
  };
}

export type DialectName = "chat" | "anthropic" | "responses";

/** What differs between dialects for a test: how to build the requester, where it points, what it names. */
export interface TestDialect {
  name: DialectName;
  /** The base URL the requester takes for `server` (Anthropic's has no `/v1`). */
  endpoint(server: Pick<ScriptedServer, "baseURL" | "url">): string;
  keyVariable: string;
  baseVariable: string;
  create(options: TurnRequesterSettings & { apiKey: string; baseURL: string }): TurnRequester;
}

export const DIALECTS: readonly TestDialect[] = [
  { name: "chat", endpoint: (server) => server.baseURL, keyVariable: "OPENAI_API_KEY", baseVariable: "OPENAI_BASE_URL", create: createTurnRequester },
  { name: "anthropic", endpoint: (server) => server.url, keyVariable: "ANTHROPIC_API_KEY", baseVariable: "ANTHROPIC_BASE_URL", create: createAnthropicTurnRequester },
  { name: "responses", endpoint: (server) => server.baseURL, keyVariable: "OPENAI_API_KEY", baseVariable: "OPENAI_BASE_URL", create: createResponsesTurnRequester },
];

export function dialectNamed(name: DialectName): TestDialect {
  const dialect = DIALECTS.find((candidate) => candidate.name === name);
  if (dialect === undefined) throw new Error(`no dialect ${name}`);
  return dialect;
}

export interface Run {
  turn?: ModelTurn;
  error?: ModelRequestError;
  text: string[];
  retries: RetryInfo[];
  requestCount: number;
}

/**
 * Plays `script` against `server` (its request log starts empty) and asks for one turn, through the real
 * SDK, with short timeouts: idle 200 ms, headers 2 s, 2 SDK retries, 2 broken-response retries.
 */
export async function requestTurn(
  server: ScriptedServer,
  script: Script,
  stream: boolean,
  extra: { options?: TurnRequesterSettings & { apiKey?: string; baseURL?: string }; request?: Partial<TurnRequest>; dialect?: TestDialect } = {},
): Promise<Run> {
  server.setScript(script);
  const before = server.requests.length;
  const retries: RetryInfo[] = [];
  const text: string[] = [];
  const dialect = extra.dialect ?? dialectNamed("chat");
  const requester = dialect.create({
    apiKey: API_KEY,
    baseURL: dialect.endpoint(server),
    maxRetries: 2,
    // Wide enough for a loaded machine; tests of the timeouts themselves set their own.
    timeoutMs: 10_000,
    idleTimeoutMs: 1_000,
    brokenResponseRetries: 2,
    onRetry: (info) => retries.push(info),
    ...extra.options,
  });
  const run: Run = { text, retries, requestCount: 0 };
  try {
    run.turn = await requester({
      model: "test-model",
      messages: PROMPT,
      tools: TOOLS,
      stream,
      signal: new AbortController().signal,
      onText: (delta) => text.push(delta),
      ...extra.request,
    });
  } catch (error) {
    if (!(error instanceof ModelRequestError)) throw error;
    run.error = error;
  }
  run.requestCount = server.requests.length - before;
  return run;
}

/**
 * Plays `script` and asks `requester` for one turn of `PROMPT` (or `request`'s messages) with `TOOLS`:
 * the turn or the `ModelRequestError`, and the requests the server saw for it.
 */
export async function playTurn(server: ScriptedServer, requester: TurnRequester, script: Script, request: Partial<TurnRequest> = {}) {
  server.setScript(script);
  const before = server.requests.length;
  const result = await requester({ model: "test-model", messages: PROMPT, tools: TOOLS, stream: true, signal: new AbortController().signal, ...request }).catch((error: unknown) => {
    if (error instanceof ModelRequestError) return error;
    throw error;
  });
  return { result, requests: server.requests.slice(before) };
}

/** `requestTurn` bound to one dialect. */
export function requestTurnIn(dialect: TestDialect): typeof requestTurn {
  return (server, script, stream, extra = {}) => requestTurn(server, script, stream, { dialect, ...extra });
}

/** Fast SDK retries: the SDK honours `retry-after-ms`. */
export const RETRY_NOW = { "retry-after-ms": "1" };
