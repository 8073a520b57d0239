/**
 * The idle timeout bounds the silence inside a body, not the body's length: a response that keeps
 * arriving in small pieces, for longer than the timeout in all, is read whole.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTurnRequester } from "../../../src/runtime/model/model-client.js";
import { PROMPT, TOOLS } from "./harness.js";

const IDLE_MS = 400;
const PIECES = 12;
const GAP_MS = 50;

const completion = {
  id: "chatcmpl-slow",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "test-model",
  choices: [{ index: 0, message: { role: "assistant", content: "arrived slowly" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
};

function sseEvents(): string[] {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-slow", object: "chat.completion.chunk", created: 1_700_000_000, model: "test-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const words = Array.from({ length: PIECES - 2 }, (_, index) => chunk({ content: `w${index} ` }, null));
  return [chunk({ role: "assistant", content: "" }, null), ...words, chunk({}, "stop"), "data: [DONE]\n\n"];
}

/** Splits `text` into `PIECES` parts. */
function pieces(text: string): string[] {
  const size = Math.ceil(text.length / PIECES);
  return Array.from({ length: PIECES }, (_, index) => text.slice(index * size, (index + 1) * size)).filter((part) => part !== "");
}

let server: Server;
let baseURL = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const stream = (JSON.parse(body) as { stream?: boolean }).stream === true;
      res.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" });
      const parts = stream ? sseEvents() : pieces(JSON.stringify(completion));
      const send = (index: number) => {
        if (index === parts.length) {
          res.end();
          return;
        }
        res.write(parts[index]);
        setTimeout(() => send(index + 1), GAP_MS);
      };
      send(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe.each([
  ["streaming", true, `${Array.from({ length: PIECES - 2 }, (_, index) => `w${index} `).join("")}`],
  ["non-streaming", false, "arrived slowly"],
])("%s", (_label, stream, content) => {
  it(`reads a body that arrives in pieces ${GAP_MS} ms apart for longer than the ${IDLE_MS} ms idle timeout`, async () => {
    const requestTurn = createTurnRequester({ apiKey: "test", baseURL, maxRetries: 0, brokenResponseRetries: 0, idleTimeoutMs: IDLE_MS });
    const started = performance.now();
    const turn = await requestTurn({ model: "test-model", messages: PROMPT, tools: TOOLS, stream, signal: new AbortController().signal });
    expect(turn.message).toEqual({ role: "assistant", content });
    // Otherwise the test proves nothing: the whole body must have taken longer than the timeout.
    expect(performance.now() - started).toBeGreaterThan(IDLE_MS);
  });
});
