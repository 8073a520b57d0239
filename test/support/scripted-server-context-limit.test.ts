/**
 * The scripted server's context limit: a request over it is refused with HTTP 400 in a real provider's
 * shape (OpenAI's `context_length_exceeded` first), before any script step is used; the model client
 * recognises every shape as a refusal for length, and anything under the limit is answered.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/runtime/loop/messages.js";
import { createTurnRequester } from "../../src/runtime/model/model-client.js";
import { ModelRequestError } from "../../src/runtime/model/model-errors.js";
import { requestSize, type ContextLimitWording } from "../../src/scripted-server/context-limit.js";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const LIMIT = 2_000;
const short: ChatMessage[] = [{ role: "user", content: "hi" }];
const long: ChatMessage[] = [{ role: "user", content: "x".repeat(LIMIT) }];

async function rawPost(server: ScriptedServer, messages: ChatMessage[]): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: JSON.stringify({ model: "m", messages }),
  });
  return { status: response.status, body: await response.json() };
}

async function start(wording?: ContextLimitWording): Promise<ScriptedServer> {
  const server = await startScriptedServer({ script: () => ({ content: "fits" }), contextLimit: { chars: LIMIT, ...(wording ? { wording } : {}) } });
  servers.push(server);
  return server;
}

describe("the scripted server's context limit", () => {
  it("answers OpenAI's error shape by default: HTTP 400, code context_length_exceeded, before using a script step", async () => {
    const server = await start();
    const size = requestSize({ model: "m", messages: long });
    expect(await rawPost(server, long)).toEqual({
      status: 400,
      body: {
        error: {
          message: `This model's maximum context length is ${LIMIT} tokens. However, your messages resulted in ${size} tokens. Please reduce the length of the messages.`,
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      },
    });
    expect(server.requests[0]?.refusedForLength).toBe(true);
    expect((await rawPost(server, short)).status).toBe(200);
    expect(server.requests[1]?.refusedForLength).toBeUndefined();
  });

  it.each<ContextLimitWording>(["openai", "deepseek", "lmstudio", "llama.cpp"])("%s: the model client marks the refusal as one for length", async (wording) => {
    const server = await start(wording);
    const requestTurn = createTurnRequester({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0 });
    const ask = (messages: ChatMessage[]) => requestTurn({ model: "m", messages, tools: [], stream: false, signal: new AbortController().signal });

    const refused = await ask(long).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ModelRequestError);
    expect(refused).toMatchObject({ status: 400, retryable: false, contextLengthExceeded: true });
    expect((await ask(short)).message.content).toBe("fits");
  });
});
