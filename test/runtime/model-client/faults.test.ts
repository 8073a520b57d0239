/**
 * The fault matrix at the client, on every dialect (Chat Completions, Anthropic Messages, Responses): every
 * fault either recovers or ends in a typed error whose message says what happened, never a hang, and
 * never streamed text taken for the answer.
 */
import { describe, expect, it } from "vitest";
import { describeModelError } from "../../../src/runtime/model/model-errors.js";
import { httpError, modelNotFound, startScriptedServer, type BrokenResponseFault, type ScriptStep } from "../../../src/scripted-server/scripted-server.js";
import { API_KEY, DIALECTS, RETRY_NOW, requestTurnIn, useScriptedServer } from "./harness.js";

const ctx = useScriptedServer();
const ANSWER: ScriptStep = { content: "the real answer" };

/** How each dialect's server words the same refusals. */
const WORDING = {
  chat: { unauthorized: /^HTTP 401 from .*: Incorrect API key provided/, missingModel: "missing required parameter: 'model'", eventsBeforeText: 1, answer: ["completion", "a completion"] },
  anthropic: { unauthorized: /^HTTP 401 from .*: invalid x-api-key/, missingModel: "model: Field required", eventsBeforeText: 3, answer: ["message", "a message"] },
  responses: { unauthorized: /^HTTP 401 from .*: Incorrect API key provided/, missingModel: "Missing required parameter: 'model'.", eventsBeforeText: 4, answer: ["output", "output"] },
};

describe.each(DIALECTS)("$name", (dialect) => {
const requestTurn = requestTurnIn(dialect);
const endpoint = () => dialect.endpoint(ctx.server);
const wording = WORDING[dialect.name];

describe.each([
  ["streaming", true],
  ["non-streaming", false],
])("%s", (_label, stream) => {
  describe("HTTP errors the SDK retries", () => {
    it.each([429, 500, 502, 503, 529])("%i then a good answer: recovered, each retry reported", async (status) => {
      const run = await requestTurn(ctx.server, [httpError(status, "try later", { headers: RETRY_NOW }), ANSWER], stream);
      expect(run.turn?.message.content).toBe("the real answer");
      expect(run.requestCount).toBe(2);
      expect(run.retries).toEqual([{ by: "sdk", attempt: 1, maxAttempts: 2, kind: "http", status, reason: expect.stringContaining(`HTTP ${status}`), delayMs: 1 }]);
    });

    it("429 until the retries run out: a clear error naming the status and the API's message", async () => {
      const limited = httpError(429, "Rate limit reached for requests", { headers: RETRY_NOW });
      const run = await requestTurn(ctx.server, [limited, limited, limited], stream);
      expect(run.requestCount).toBe(3);
      expect(run.error).toMatchObject({ kind: "http", status: 429, retryable: true });
      expect(run.error?.message).toBe(`HTTP 429 from ${endpoint()}: Rate limit reached for requests (after 3 attempts)`);
      expect(run.error?.hint).toMatch(/rate limit/i);
    });

    it("honours retry-after in seconds and reports the wait", async () => {
      const run = await requestTurn(ctx.server, [httpError(503, "busy", { headers: { "retry-after": "0" } }), ANSWER], stream);
      expect(run.turn?.message.content).toBe("the real answer");
      expect(run.retries[0]).toMatchObject({ status: 503, delayMs: 0 });
    });

    it("a retry-after beyond a minute is not waited for: an error at once that says the wait", async () => {
      const run = await requestTurn(ctx.server, [httpError(429, "Quota exceeded", { headers: { "retry-after": "3600" } }), ANSWER], stream);
      expect(run.requestCount).toBe(1);
      expect(run.retries).toEqual([]);
      expect(run.error).toMatchObject({ kind: "http", status: 429 });
      expect(run.error?.message).toContain("Quota exceeded (the server asks to wait 3600 s before retrying)");
    });

    it("a 502 with an HTML body: the status and the start of the body", async () => {
      const html = { fault: "status", status: 502, body: "<html><h1>502 Bad Gateway</h1></html>", headers: RETRY_NOW } as const;
      const run = await requestTurn(ctx.server, [html, html, html], stream);
      expect(run.error).toMatchObject({ kind: "http", status: 502 });
      expect(run.error?.message).toContain("HTTP 502");
      expect(run.error?.message).toContain("502 Bad Gateway");
    });
  });

  describe("errors that are not retried", () => {
    it("401: status, the API's message without the key, and the variable to set", async () => {
      const run = await requestTurn(ctx.server, () => ANSWER, stream, { options: { apiKey: `${API_KEY}-wrong` } });
      expect(run.requestCount).toBe(1);
      expect(run.error).toMatchObject({ kind: "http", status: 401, retryable: false });
      expect(run.error?.message).toMatch(wording.unauthorized);
      expect(run.error?.hint).toContain(dialect.keyVariable);
      expect(describeModelError(run.error!)).not.toContain(API_KEY);
      expect(describeModelError(run.error!)).not.toContain("0123456789abcdef");
    });

    it("404 model not found: the API's message and where to set the model", async () => {
      const run = await requestTurn(ctx.server, [modelNotFound("test-model")], stream);
      expect(run.requestCount).toBe(1);
      expect(run.error).toMatchObject({ kind: "http", status: 404, retryable: false });
      expect(run.error?.message).toContain("The model `test-model` does not exist");
      expect(run.error?.hint).toMatch(/AGENT_MODEL or --model/);
    });

    it("400 from a strict gateway is reported with its message", async () => {
      const run = await requestTurn(ctx.server, [ANSWER], stream, { request: { model: "" } });
      expect(run.error).toMatchObject({ kind: "http", status: 400, retryable: false });
      expect(run.error?.message).toContain(wording.missingModel);
    });
  });

  describe("connection faults", () => {
    it("connection refused: could not connect, to which URL, and the variable to check", async () => {
      const gone = await startScriptedServer({ script: [] });
      await gone.close();
      const run = await requestTurn(ctx.server, [], stream, { options: { baseURL: dialect.endpoint(gone), maxRetries: 1 } });
      expect(run.error).toMatchObject({ kind: "connection", retryable: true });
      expect(run.error?.message).toBe(`could not connect to ${dialect.endpoint(gone)}: connection refused (after 2 attempts)`);
      expect(run.error?.hint).toContain(dialect.baseVariable);
      expect(run.retries).toMatchObject([{ by: "sdk", kind: "connection", reason: "connection refused" }]);
    });

    it("a reset before the response is retried by the SDK", async () => {
      const run = await requestTurn(ctx.server, [{ fault: "reset" }, ANSWER], stream);
      expect(run.turn?.message.content).toBe("the real answer");
      expect(run.retries).toMatchObject([{ by: "sdk", kind: "connection", reason: "connection reset" }]);
    });

    it("resets until the SDK's retries run out: a connection error naming the URL", async () => {
      const run = await requestTurn(ctx.server, () => ({ fault: "reset" }), stream, { options: { maxRetries: 1 } });
      expect(run.requestCount).toBe(2);
      expect(run.error).toMatchObject({ kind: "connection", retryable: true });
      expect(run.error?.message).toBe(`the connection to ${endpoint()} failed before a response: connection reset (after 2 attempts)`);
    });
  });

  describe("responses that break after their headers: dropped whole and resent", () => {
    const cases: Array<[BrokenResponseFault["fault"], string, RegExp]> = [
      ["cut", "connection", /broke in the middle of the response/],
      ["stall", "timeout", /^timeout: .* sent nothing for 1 s/],
      ["malformed-sse", "malformed", /malformed response from .*: not valid JSON \/ SSE/],
      ["not-json", "malformed", /malformed response from .*(not valid JSON|expected an SSE stream)/],
      ["no-choices", "no_choices", /^no choices/],
      ["error-event", "http", /^the API (reported an error in the middle of its response|answered with an error instead of a (completion|message|response)): The server had an error/],
    ];

    it.each(cases)("%s once: recovered with the next response, the retry reported", async (fault, kind) => {
      const run = await requestTurn(ctx.server, [{ fault, reply: { content: "half an answer" } }, ANSWER], stream);
      expect(run.turn?.message.content).toBe("the real answer");
      expect(run.requestCount).toBe(2);
      expect(run.retries).toMatchObject([{ by: "broken_response", attempt: 1, maxAttempts: 2, kind }]);
    });

    it.each(cases)("%s every time: a clear error after the bounded resends, never the partial text", async (fault, kind, message) => {
      const broken: ScriptStep = { fault, reply: { content: "half an answer that is not the answer" }, afterEvents: 3 };
      const run = await requestTurn(ctx.server, () => broken, stream);
      expect(run.turn).toBeUndefined();
      expect(run.requestCount).toBe(3);
      expect(run.error).toMatchObject({ kind, retryable: true });
      expect(run.error?.message).toMatch(message);
      expect(run.error?.message).not.toContain("half an answer");
    });

    it("no answer every time: the error names what was missing in the dialect's words", async () => {
      const run = await requestTurn(ctx.server, () => ({ fault: "no-choices" }), stream);
      const [noun, withArticle] = wording.answer;
      expect(run.error?.message).toBe(`no choices: the response from ${endpoint()} held no ${noun}`);
      expect(run.error?.hint).toBe(`The endpoint answered without ${withArticle}; check the model (AGENT_MODEL) and the endpoint.`);
    });
  });

  describe("the caller's abort", () => {
    it("stops a stalled response at once and is not retried", async () => {
      const controller = new AbortController();
      const pending = requestTurn(ctx.server, () => ({ fault: "stall" }), stream, {
        options: { idleTimeoutMs: 60_000 },
        request: { signal: controller.signal },
      });
      await ctx.server.waitForRequests(ctx.server.requests.length + 1);
      controller.abort();
      const run = await pending;
      expect(run.requestCount).toBe(1);
      expect(run.error).toMatchObject({ kind: "aborted", retryable: false });
      expect(run.error?.message).toMatch(/interrupted/);
      expect(run.retries).toEqual([]);
    });

    it("does not wait out the SDK's backoff before giving up", { timeout: 10_000 }, async () => {
      const controller = new AbortController();
      const pending = requestTurn(ctx.server, [httpError(503, "busy", { headers: { "retry-after-ms": "30000" } }), ANSWER], stream, {
        request: { signal: controller.signal },
      });
      await ctx.server.waitForRequests(ctx.server.requests.length + 1);
      controller.abort();
      const run = await pending;
      expect(run.requestCount).toBe(1);
      expect(run.error?.kind).toBe("aborted");
    });

    it("an already aborted signal sends nothing", async () => {
      const run = await requestTurn(ctx.server, [ANSWER], stream, { request: { signal: AbortSignal.abort() } });
      expect(run.requestCount).toBe(0);
      expect(run.error?.kind).toBe("aborted");
    });
  });
});

describe("streaming only", () => {
  it("text streamed before a cut reaches onText but the turn is the resent response", async () => {
    const afterEvents = wording.eventsBeforeText + 3;
    const run = await requestTurn(ctx.server, [{ fault: "cut", reply: { content: "PARTIAL-TEXT-SHOWN-ONLY", stream: { chunkSize: 4 } }, afterEvents }, ANSWER], true);
    expect(run.text.join("")).toContain("PART");
    expect(run.turn?.message).toEqual({ role: "assistant", content: "the real answer" });
  });

  it("a stall with no headers at all ends at the SDK's timeout, retried by the SDK", async () => {
    const run = await requestTurn(ctx.server, [{ ...ANSWER, delayMs: 1_000 }, ANSWER], true, { options: { timeoutMs: 150 } });
    expect(run.turn?.message.content).toBe("the real answer");
    expect(run.retries).toMatchObject([{ by: "sdk", kind: "timeout", reason: expect.stringContaining("timeout") }]);
  });

  it("an HTML page where the stream should be: refused as no SSE stream, with the dialect's base-URL variable", async () => {
    const run = await requestTurn(ctx.server, () => ({ fault: "not-json" }), true);
    expect(run.requestCount).toBe(3);
    expect(run.turn).toBeUndefined();
    expect(run.error).toMatchObject({ kind: "malformed", retryable: true });
    expect(run.error?.message).toBe(`malformed response from ${endpoint()}: expected an SSE stream (text/event-stream), got text/html`);
    expect(run.error?.hint).toBe(`The endpoint or a proxy in front of it sent a broken body; check ${dialect.baseVariable}.`);
  });
});
});
