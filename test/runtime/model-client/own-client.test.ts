/** A program that already has an `openai` client hands it over; the requester keeps its identity and adds its own reliability. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import OpenAI, { type ClientOptions } from "openai";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createTurnRequester, type RetryInfo } from "../../../src/runtime/model/model-client.js";
import { ModelRequestError, toModelRequestError } from "../../../src/runtime/model/model-errors.js";
import { createResponsesTurnRequester } from "../../../src/runtime/model/responses/responses-client.js";
import { repoRoot } from "../../package/installed-sigloop.js";
import { API_KEY, PROMPT, TOOLS, useScriptedServer } from "./harness.js";

const ctx = useScriptedServer();

/**
 * A second copy of the SDK, with classes of its own: `openai` bundled into one file, as the installed
 * package carries it beside the program's own `openai`.
 */
async function otherCopyOfOpenAI(): Promise<typeof OpenAI> {
  const out = path.join(mkdtempSync(path.join(tmpdir(), "sigloop-openai-copy-")), "openai.mjs");
  await build({ stdin: { contents: `export { default } from "openai";`, resolveDir: repoRoot }, bundle: true, platform: "node", format: "esm", outfile: out, logLevel: "silent" });
  return ((await import(pathToFileURL(out).href)) as { default: typeof OpenAI }).default;
}

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

describe("a client of another copy of the SDK (the installed package bundles its own)", () => {
  let OtherOpenAI: typeof OpenAI;
  beforeAll(async () => {
    OtherOpenAI = await otherCopyOfOpenAI();
  }, 60_000);
  const ask = (requester: ReturnType<typeof createTurnRequester>) =>
    requester({ model: "test-model", messages: PROMPT, tools: TOOLS, stream: true, signal: new AbortController().signal }).catch((e: unknown) => e);

  it("is a copy of its own: its errors are not this copy's classes", async () => {
    const client = new OtherOpenAI({ apiKey: "wrong", baseURL: ctx.server.baseURL, maxRetries: 0 });
    const thrown = await client.models.list().catch((e: unknown) => e);
    expect(OtherOpenAI).not.toBe(OpenAI);
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(OpenAI.APIError);
    expect(typeof (thrown as { status?: unknown }).status).toBe("number");
  });

  it("answers, and a refused key is an http error with its status and the API's message, the key scrubbed", async () => {
    ctx.server.setScript([{ content: "from the program's client" }]);
    const good = await ask(createTurnRequester({ client: new OtherOpenAI({ apiKey: API_KEY, baseURL: ctx.server.baseURL }) }));
    expect((good as { message?: unknown }).message).toEqual({ role: "assistant", content: "from the program's client" });

    const wrongKey = `${API_KEY}-wrong`;
    const error = await ask(createTurnRequester({ client: new OtherOpenAI({ apiKey: wrongKey, baseURL: ctx.server.baseURL }) }));
    expect(error).toBeInstanceOf(ModelRequestError);
    expect(error).toMatchObject({ kind: "http", status: 401, retryable: false });
    expect((error as ModelRequestError).message).toContain("Incorrect API key provided");
    expect((error as ModelRequestError).message).not.toContain(wrongKey);
  });

  it("an endpoint nobody listens on is a connection error that says so", async () => {
    const error = await ask(createTurnRequester({ client: new OtherOpenAI({ apiKey: API_KEY, baseURL: "http://127.0.0.1:9/v1" }), maxRetries: 0 }));
    expect(error).toMatchObject({ kind: "connection", retryable: true });
    expect((error as ModelRequestError).message).toMatch(/^could not connect to http:\/\/127\.0\.0\.1:9\/v1: /);
  });

  it("the Responses requester classifies its errors the same way", async () => {
    const error = await ask(createResponsesTurnRequester({ client: new OtherOpenAI({ apiKey: `${API_KEY}-wrong`, baseURL: ctx.server.baseURL }) }));
    expect(error).toMatchObject({ kind: "http", status: 401, retryable: false });
  });
});

it("an error of an older copy (headers as a plain object, as before openai 5) keeps its status and its retry-after", () => {
  class OpenAIError extends Error {}
  class APIError extends OpenAIError {
    constructor(readonly status: number, readonly error: object, message: string, readonly headers: Record<string, string>) {
      super(`${status} ${message}`);
    }
  }
  class RateLimitError extends APIError {}
  const made = toModelRequestError(new RateLimitError(429, { message: "Rate limit reached" }, "Rate limit reached", { "retry-after": "3600" }), {
    baseURL: "http://127.0.0.1:9/v1", apiKey: API_KEY, userAborted: false, attempts: 1,
  });
  expect(made).toMatchObject({ kind: "http", status: 429, retryable: true });
  expect(made.message).toContain("Rate limit reached");
  expect(made.message).toContain("the server asks to wait");
});
