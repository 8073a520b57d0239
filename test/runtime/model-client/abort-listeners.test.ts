/**
 * A long run shares one abort signal across all its requests: no request may leave a listener on it,
 * or a 200-turn run piles up 200 of them (and Node prints `MaxListenersExceededWarning`).
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { createTurnRequester } from "../../../src/runtime/model/model-client.js";
import { ModelRequestError } from "../../../src/runtime/model/model-errors.js";
import { API_KEY, PROMPT, RETRY_NOW, TOOLS, useScriptedServer } from "./harness.js";

const ctx = useScriptedServer();
const TURNS = 50;

describe.each([
  ["streaming", true],
  ["non-streaming", false],
])("%s", (_label, stream) => {
  it(`leaves no abort listener on the caller's signal after ${TURNS} requests, retried or failed ones included`, async () => {
    ctx.server.setScript([
      ...Array.from({ length: TURNS }, (_, index) => ({ toolCalls: [{ id: `call_${index}`, name: "add", arguments: '{"a":1,"b":2}' }] })),
      { fault: "status" as const, status: 503, headers: RETRY_NOW },
      { content: "after a retry" },
      { fault: "status" as const, status: 400, body: { error: { message: "bad request" } } },
    ]);
    const requestTurn = createTurnRequester({ apiKey: API_KEY, baseURL: ctx.server.baseURL, maxRetries: 2, idleTimeoutMs: 2_000 });
    const signal = new AbortController().signal;
    const request = { model: "test-model", messages: PROMPT, tools: TOOLS, stream, signal };
    const before = getEventListeners(signal, "abort").length;

    for (let turn = 0; turn < TURNS; turn++) {
      const { message } = await requestTurn(request);
      expect(message).toMatchObject({ tool_calls: [{ id: `call_${turn}` }] });
    }
    expect(getEventListeners(signal, "abort")).toHaveLength(before);

    expect((await requestTurn(request)).message.content).toBe("after a retry");
    await expect(requestTurn(request)).rejects.toBeInstanceOf(ModelRequestError);
    expect(getEventListeners(signal, "abort")).toHaveLength(before);
  });
});
