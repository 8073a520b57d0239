/**
 * A response must end: one that never does (something arrives every 50 ms, so the idle timeout never
 * fires) is cut at the response timeout, and one that grows past the size bound is cut there, whatever
 * its pace. Either cut drops the partial response, is resent at most twice, then ends in a typed error.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../../../src/runtime/model/model-client.js";
import type { ScriptStep } from "../../../src/scripted-server/scripted-server.js";
import { requestTurn, useScriptedServer } from "./harness.js";

const ctx = useScriptedServer();
const ANSWER: ScriptStep = { content: "the real answer" };
const RESPONSE_TIMEOUT_MS = 400;
// The idle timeout (1 s in the harness) could fire first on a loaded machine that delays a 50 ms
// send; well above the response timeout, only the cut under test can end these responses.
const ENDLESS_OPTIONS = { responseTimeoutMs: RESPONSE_TIMEOUT_MS, idleTimeoutMs: 5 * RESPONSE_TIMEOUT_MS };

describe.each([
  ["streaming", true],
  ["non-streaming", false],
])("%s", (_label, stream) => {
  // Without streaming, either is a space after the start of a JSON body.
  describe.each(["comment", "delta"] as const)("a response that never ends, an SSE %s every 50 ms", (send) => {
    it(`is cut ${RESPONSE_TIMEOUT_MS} ms after it started, resent twice, then a timeout error`, async () => {
      const run = await requestTurn(ctx.server, () => ({ fault: "endless", send }), stream, { options: ENDLESS_OPTIONS });
      expect(run.turn).toBeUndefined();
      expect(run.requestCount).toBe(3);
      expect(run.retries).toMatchObject([
        { by: "broken_response", attempt: 1, maxAttempts: 2, kind: "timeout" },
        { by: "broken_response", attempt: 2, maxAttempts: 2, kind: "timeout" },
      ]);
      expect(run.error).toMatchObject({ kind: "timeout", retryable: true });
      expect(run.error?.message).toBe(`timeout: the response from ${ctx.server.baseURL} did not end within ${RESPONSE_TIMEOUT_MS} ms of its start; the partial response was dropped`);
      expect(run.error?.hint).toMatch(/longer response timeout/);
      expect(run.text.join("")).not.toContain("xxxxx".repeat(20));
    });
  });

  it("an endless response once, then a good one: recovered, the cut reported as a retry", async () => {
    const run = await requestTurn(ctx.server, [{ fault: "endless", send: "delta" }, ANSWER], stream, { options: ENDLESS_OPTIONS });
    expect(run.turn?.message.content).toBe("the real answer");
    expect(run.requestCount).toBe(2);
    expect(run.retries).toMatchObject([{ by: "broken_response", attempt: 1, kind: "timeout", reason: expect.stringContaining("did not end within") }]);
  });

  it("a response larger than the default 8 MB bound is cut: a too_large error naming the bound", async () => {
    const huge: ScriptStep = { content: "y".repeat(DEFAULT_MAX_RESPONSE_BYTES + 1024), stream: { chunkSize: 64 * 1024 } };
    const run = await requestTurn(ctx.server, () => huge, stream, { options: { brokenResponseRetries: 0 } });
    expect(run.turn).toBeUndefined();
    expect(run.requestCount).toBe(1);
    expect(run.error).toMatchObject({ kind: "too_large", retryable: true });
    expect(run.error?.message).toBe(`response too large: ${ctx.server.baseURL} sent more than 8 MB (8388608 bytes) in one response; the partial response was dropped`);
  });

  it("a flood of 64 KB deltas every 10 ms is cut at a lower bound, resent at most twice", async () => {
    const flood: ScriptStep = { fault: "endless", send: "delta", everyMs: 10, deltaChars: 64 * 1024 };
    const run = await requestTurn(ctx.server, () => flood, stream, { options: { maxResponseBytes: 1024 * 1024, responseTimeoutMs: 60_000 } });
    expect(run.requestCount).toBe(3);
    expect(run.retries.map((retry) => retry.kind)).toEqual(["too_large", "too_large"]);
    expect(run.error?.message).toContain("sent more than 1 MB (1048576 bytes) in one response");
  });

  it("a response just under the bound is read whole", async () => {
    const content = "z".repeat(200_000);
    const run = await requestTurn(ctx.server, [{ content, stream: { chunkSize: 64 * 1024 } }], stream, { options: { maxResponseBytes: 300_000 } });
    expect(run.turn?.message.content).toBe(content);
  });

  it("durations past what a Node.js timer holds mean no limit, not an instant timeout", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const tooLong = 3_000_000_000;
      const run = await requestTurn(ctx.server, [ANSWER], stream, { options: { timeoutMs: tooLong, idleTimeoutMs: tooLong, responseTimeoutMs: tooLong } });
      expect(run.error).toBeUndefined();
      expect(run.turn?.message.content).toBe("the real answer");
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.name)).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
