/** A program that already has an `openai` client hands it over; the requester keeps its identity and adds its own reliability. */
import OpenAI, { type ClientOptions } from "openai";
import { expect, it, vi } from "vitest";
import { createTurnRequester, type RetryInfo } from "../../../src/runtime/model/model-client.js";
import { ModelRequestError } from "../../../src/runtime/model/model-errors.js";
import { API_KEY, PROMPT, TOOLS, useScriptedServer } from "./harness.js";

const ctx = useScriptedServer();

it("uses the program's client (key, endpoint, headers) with the idle timeout and retries of its own", async () => {
  const client = new OpenAI({ apiKey: API_KEY, baseURL: ctx.server.baseURL, defaultHeaders: { "x-team": "search" }, maxRetries: 0 });
  const retries: RetryInfo[] = [];
  const requestTurn = createTurnRequester({ client, idleTimeoutMs: 200, maxRetries: 2, onRetry: (info) => retries.push(info) });
  ctx.server.setScript([{ fault: "stall" }, { content: "after the stall" }]);
  const before = ctx.server.requests.length;

  const turn = await requestTurn({ model: "test-model", messages: PROMPT, tools: TOOLS, stream: true, signal: new AbortController().signal });

  expect(turn.message).toEqual({ role: "assistant", content: "after the stall" });
  expect(retries).toMatchObject([{ by: "broken_response", kind: "timeout" }]);
  const sent = ctx.server.requests.slice(before);
  expect(sent.map((request) => request.headers["x-team"])).toEqual(["search", "search"]);
  expect(sent.map((request) => request.headers.authorization)).toEqual([`Bearer ${API_KEY}`, `Bearer ${API_KEY}`]);
});

it("scrubs the client's key from errors as it does a key it was given", async () => {
  const client = new OpenAI({ apiKey: `${API_KEY}-wrong`, baseURL: ctx.server.baseURL });
  ctx.server.setScript([{ content: "never" }]);
  const error = await createTurnRequester({ client })({ model: "test-model", messages: PROMPT, tools: TOOLS, stream: false, signal: new AbortController().signal }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ModelRequestError);
  expect((error as ModelRequestError).status).toBe(401);
  expect((error as ModelRequestError).message).not.toContain(API_KEY.slice(-8));
});

it("a client whose fetchOptions only the global fetch knows (an undici dispatcher for a proxy) has its requests sent by the global fetch, options included", async () => {
  const dispatcher = { marker: "the program's proxy agent" };
  const globalFetch = globalThis.fetch;
  const seen: unknown[] = [];
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const { dispatcher: given, ...rest } = init as RequestInit & { dispatcher?: unknown };
    seen.push(given);
    return globalFetch(input, rest);
  });
  try {
    const client = new OpenAI({ apiKey: API_KEY, baseURL: ctx.server.baseURL, fetchOptions: { dispatcher } as unknown as ClientOptions["fetchOptions"] });
    ctx.server.setScript([{ content: "through the proxy" }]);
    const turn = await createTurnRequester({ client })({ model: "test-model", messages: PROMPT, tools: TOOLS, stream: true, signal: new AbortController().signal });
    expect(turn.message).toEqual({ role: "assistant", content: "through the proxy" });
    expect(seen).toEqual([dispatcher]);
  } finally {
    spy.mockRestore();
  }
});
