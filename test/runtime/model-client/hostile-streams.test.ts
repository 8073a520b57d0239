/**
 * Streams a hostile or broken endpoint sends, as the user meets them through the CLI: a raw node:http
 * server on 127.0.0.1 answers each request with bytes of its own, and the tests check stdout, the stderr
 * lines, the exit code, how many requests the server saw and what the tool was given.
 *
 * - Anthropic block indexes out of order (4294967294, a gap, a fraction) and deltas for a block never
 *   started are broken bodies: resent, then exit 3 naming the index; never allocated or walked by.
 * - The terminal event ends the read (Anthropic `message_stop`, Responses `response.completed`): what
 *   follows is not part of the answer, and a body kept open after it is not waited for.
 * - An error event resends only when its code says trying again may succeed.
 * - An Anthropic tool input sent as a JSON string reaches the executor as one, so its note applies.
 * - A `retry-after` that is negative or past is not reported as a wait; token counts that are no counts are dropped.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess, tempDir, writeFixtureSchemas, type CliRun } from "../../cli/support.js";
import { SENTINEL_API_KEY } from "../../support/sentinel-key.js";
import { httpError, startScriptedServer, type ScriptedServer } from "../../../src/scripted-server/scripted-server.js";

const sse = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** What the server does with request `index` (0-based): write and end, or leave the body open. */
type Respond = (index: number, body: Record<string, unknown>, res: ServerResponse) => void;

let server: Server;
let url: string;
let respond: Respond;
/** Every request body the server saw, in order. */
let bodies: Record<string, unknown>[] = [];
let schemas: string;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      const body = JSON.parse(text || "{}") as Record<string, unknown>;
      bodies.push(body);
      respond(bodies.length - 1, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  schemas = writeFixtureSchemas(tempDir());
});

afterEach(() => {
  bodies = [];
  // A body left open by a test must not outlive it.
  server.closeAllConnections();
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function streamHead(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
}

async function anthropic(prompt: string, ...flags: string[]): Promise<CliRun> {
  const env = { ANTHROPIC_API_KEY: SENTINEL_API_KEY, ANTHROPIC_BASE_URL: url, AGENT_MODEL: "scripted-model", NO_COLOR: "1" };
  return runCliInProcess(["--provider", "anthropic", "--schemas", schemas, ...flags, prompt], env);
}

async function chat(prompt: string, ...flags: string[]): Promise<CliRun> {
  const env = { OPENAI_API_KEY: SENTINEL_API_KEY, OPENAI_BASE_URL: `${url}/v1`, AGENT_MODEL: "scripted-model", NO_COLOR: "1" };
  return runCliInProcess(["--schemas", schemas, ...flags, prompt], env);
}

async function responses(prompt: string, ...flags: string[]): Promise<CliRun> {
  const env = { OPENAI_API_KEY: SENTINEL_API_KEY, OPENAI_BASE_URL: `${url}/v1`, AGENT_MODEL: "scripted-model", NO_COLOR: "1" };
  return runCliInProcess(["--provider", "responses", "--schemas", schemas, ...flags, prompt], env);
}

// --- Anthropic events -------------------------------------------------------------------------------

const messageStart = (usage: Record<string, unknown> = { input_tokens: 5, output_tokens: 1 }) =>
  sse("message_start", { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", content: [], model: "scripted-model", stop_reason: null, usage } });
const textStart = (index: number) => sse("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
const textDelta = (index: number, text: string) => sse("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text } });
const blockStop = (index: number) => sse("content_block_stop", { type: "content_block_stop", index });
const messageDelta = (stopReason: string, usage: Record<string, unknown> = { output_tokens: 3 }) =>
  sse("message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage });
const messageStop = () => sse("message_stop", { type: "message_stop" });

/** A whole Anthropic text answer, `message_stop` included. */
const anthropicAnswer = (text: string) => messageStart() + textStart(0) + textDelta(0, text) + blockStop(0) + messageDelta("end_turn") + messageStop();

// --- Responses events -------------------------------------------------------------------------------

const completedResponse = (text: string, usage: Record<string, unknown> = { input_tokens: 5, output_tokens: 2 }) => ({
  id: "resp_1",
  object: "response",
  status: "completed",
  output: [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] }],
  usage,
});
const responsesAnswer = (text: string, usage?: Record<string, unknown>) =>
  sse("response.output_text.delta", { type: "response.output_text.delta", delta: text }) +
  sse("response.completed", { type: "response.completed", response: completedResponse(text, usage) });

describe("Anthropic: a block index is the next block's or a started one's, never a number to allocate by", () => {
  it.each([
    ["4294967294", 4294967294],
    ["6e8", 6e8],
    ["a gap (2 after 0)", 2],
    ["a fraction", 0.5],
    ["a negative one", -1],
  ])("content_block_start index %s: resent twice, then exit 3 naming the index, at once", async (_name, index) => {
    respond = (_index, _body, res) => {
      streamHead(res);
      // Block 0 first, so that a gap is a gap; then the bad index.
      res.end(messageStart() + textStart(0) + textDelta(0, "ok") + blockStop(0) + textStart(index) + textDelta(index, "x") + messageDelta("end_turn") + messageStop());
    };
    const started = performance.now();
    const result = await anthropic("hi");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`malformed response from ${url}: content_block_start has index ${index}, not the next block's (1 started before it); the partial response was dropped`);
    expect(bodies).toHaveLength(3);
  });

  it("a content_block_delta for a block never started: resent twice, then exit 3 saying so", async () => {
    respond = (_index, _body, res) => {
      streamHead(res);
      res.end(messageStart() + textStart(0) + textDelta(0, "ok") + textDelta(3, " lost") + blockStop(0) + messageDelta("end_turn") + messageStop());
    };
    const result = await anthropic("hi");
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("content_block_delta for block 3, which never started (1 started)");
    expect(bodies).toHaveLength(3);
  });

  it("a block started again at its own index replaces it (still the answer, one request)", async () => {
    respond = (_index, _body, res) => {
      streamHead(res);
      res.end(messageStart() + textStart(0) + textDelta(0, "first") + textStart(0) + textDelta(0, "second") + blockStop(0) + messageDelta("end_turn") + messageStop());
    };
    const result = await anthropic("hi");
    expect(result).toMatchObject({ code: 0, stdout: "second\n" });
    expect(bodies).toHaveLength(1);
  });
});

describe("the terminal event ends the read", () => {
  it("Anthropic: a delta after message_stop is not part of the answer", async () => {
    respond = (_index, _body, res) => {
      streamHead(res);
      res.end(anthropicAnswer("hello") + textDelta(0, " and more after the stop"));
    };
    const result = await anthropic("hi");
    expect(result).toMatchObject({ code: 0, stdout: "hello\n" });
    expect(bodies).toHaveLength(1);
  });

  it("Responses: a second response.completed does not replace the answer", async () => {
    respond = (_index, _body, res) => {
      streamHead(res);
      res.end(responsesAnswer("the answer") + sse("response.completed", { type: "response.completed", response: completedResponse("a replacement") }));
    };
    const result = await responses("hi");
    expect(result).toMatchObject({ code: 0, stdout: "the answer\n" });
    expect(bodies).toHaveLength(1);
  });

  it.each([
    ["Anthropic", anthropic, anthropicAnswer("complete")],
    ["Responses", responses, responsesAnswer("complete")],
  ] as const)("%s: a complete answer, then a body the server never ends: the answer, one request, no idle timeout", async (_name, run, events) => {
    respond = (_index, _body, res) => {
      streamHead(res);
      res.write(events);
      // Never ended: only the idle timeout would stop the read.
    };
    const result = await run("hi", "--idle-timeout", "300");
    expect(result).toMatchObject({ code: 0, stdout: "complete\n" });
    expect(result.stderr).not.toContain("timeout");
    expect(result.stderr).not.toContain("dropped");
    expect(bodies).toHaveLength(1);
  });
});

describe("an error event is resent only when its code says trying again may succeed", () => {
  const responsesError = (code: string | null, message: string) => sse("error", { type: "error", code, message, param: null, sequence_number: 1 });
  const anthropicError = (type: string, message: string) => sse("error", { type: "error", error: { type, message } });

  it.each([
    ["insufficient_quota", "You exceeded your current quota."],
    ["invalid_prompt", "Invalid prompt: flagged."],
  ])("Responses %s: not resent, exit 3 with the API's message and code", async (code, message) => {
    respond = (_index, _body, res) => {
      streamHead(res);
      res.end(responsesError(code, message));
    };
    const result = await responses("hi");
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`the API reported an error in the middle of its response: ${message} (${code})`);
    expect(result.stderr).not.toContain("retry 1 of 2");
    expect(bodies).toHaveLength(1);
  });

  it.each([
    ["insufficient_quota", 1, "not resent"],
    ["server_error", 3, "resent twice"],
    [null, 3, "resent twice"],
  ])("Chat Completions answered 200 with an error of code %s instead of a completion: %i request(s) (%s), exit 3", async (code, requests, _how) => {
    respond = (_index, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "No completion for you.", type: "server_error", code } }));
    };
    const result = await chat("hi", "--no-stream");
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("the API answered with an error instead of a completion: No completion for you.");
    expect(bodies).toHaveLength(requests);
  });

  it.each([["server_error"], ["rate_limit_exceeded"], [null]])("Responses code %s: resent twice, then exit 3", async (code) => {
    respond = (_index, _body, res) => {
      streamHead(res);
      res.end(responsesError(code, "The server had an error."));
    };
    const result = await responses("hi");
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("retry 2 of 2");
    expect(bodies).toHaveLength(3);
  });

  it.each([["invalid_request_error"], ["authentication_error"], ["permission_error"], ["not_found_error"]])(
    "Anthropic %s: not resent, exit 3 with the API's message",
    async (type) => {
      respond = (_index, _body, res) => {
        streamHead(res);
        res.end(messageStart() + anthropicError(type, "Your request was refused."));
      };
      const result = await anthropic("hi");
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(`the API reported an error in the middle of its response: Your request was refused. (${type})`);
      expect(bodies).toHaveLength(1);
    },
  );

  it.each([["overloaded_error"], ["api_error"]])("Anthropic %s: resent, and the next good answer is taken", async (type) => {
    respond = (index, _body, res) => {
      streamHead(res);
      res.end(index === 0 ? messageStart() + anthropicError(type, "Overloaded") : anthropicAnswer("recovered"));
    };
    const result = await anthropic("hi");
    expect(result).toMatchObject({ code: 0, stdout: "recovered\n" });
    expect(result.stderr).toContain("retry 1 of 2");
    expect(bodies).toHaveLength(2);
  });
});

describe("Anthropic: a tool input sent as a JSON string reaches the executor as one", () => {
  const DECODED_NOTE = "[decoded arguments that were sent as a JSON string; send a JSON object]";
  const toolStart = (input: unknown) => sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "echo", input } });
  const inputDelta = (partial: string) => sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: partial } });
  const toolTurn = (blocks: string) => messageStart() + blocks + blockStop(0) + messageDelta("tool_use") + messageStop();

  /** The text of the tool_result the second request carried back. */
  function toolResultText(): string {
    const messages = bodies[1]?.messages as { role: string; content: unknown }[] | undefined;
    const last = messages?.[messages.length - 1];
    const result = Array.isArray(last?.content) ? (last.content as Record<string, unknown>[]).find((block) => block.type === "tool_result") : undefined;
    const content = result?.content;
    return typeof content === "string" ? content : JSON.stringify(content);
  }

  it.each([
    ["streamed as input_json_delta", toolTurn(toolStart({}) + inputDelta(JSON.stringify(JSON.stringify({ text: "x" }))))],
    ["given as the content_block_start's input", toolTurn(toolStart(JSON.stringify({ text: "x" })))],
  ])("%s: the tool runs on the decoded object, and the model is told (the executor's note)", async (_name, first) => {
    respond = (index, _body, res) => {
      streamHead(res);
      res.end(index === 0 ? first : anthropicAnswer("done"));
    };
    const result = await anthropic("echo x");
    expect(result).toMatchObject({ code: 0, stdout: "done\n" });
    expect(bodies).toHaveLength(2);
    expect(toolResultText()).toContain("echo: x");
    expect(toolResultText()).toContain(DECODED_NOTE);
  });
});

describe("token counts that are no counts are dropped", () => {
  it("Anthropic: negative and 1e308 counts are not printed; the valid ones are", async () => {
    respond = (_index, _body, res) => {
      streamHead(res);
      res.end(
        messageStart({ input_tokens: -5, cache_read_input_tokens: 1e308, cache_creation_input_tokens: 7, output_tokens: 1 }) +
          textStart(0) + textDelta(0, "counted") + blockStop(0) + messageDelta("end_turn", { output_tokens: -3 }) + messageStop(),
      );
    };
    const result = await anthropic("hi");
    expect(result).toMatchObject({ code: 0, stdout: "counted\n" });
    expect(result.stderr).not.toMatch(/-5|-3|e\+308|Infinity/);
    expect(result.stderr).toContain("7 in, 1 out");
  });

  it("Responses: a usage with a negative count is no usage; a bad cached count is left out", async () => {
    respond = (index, _body, res) => {
      streamHead(res);
      res.end(responsesAnswer("counted", { input_tokens: 11, output_tokens: 2, input_tokens_details: { cached_tokens: -1 } }));
    };
    const result = await responses("hi");
    expect(result).toMatchObject({ code: 0, stdout: "counted\n" });
    expect(result.stderr).toContain("11 in, 2 out");
    expect(result.stderr).not.toContain("-1 cached");
  });
});

describe("a retry-after the SDK does not honour is not reported as a wait", () => {
  let scripted: ScriptedServer;
  beforeAll(async () => {
    scripted = await startScriptedServer({ script: [] });
  });
  afterAll(async () => {
    await scripted.close();
  });

  it.each([
    ["retry-after-ms -5000", { "retry-after-ms": "-5000" }],
    ["retry-after -5", { "retry-after": "-5" }],
    ["retry-after a past date", { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }],
    ["retry-after Infinity", { "retry-after": "Infinity" }],
  ])("%s: the retry line names no wait, and the retry succeeds", async (_name, headers) => {
    scripted.setScript([httpError(429, "Rate limit reached", { headers }), { content: "after the retry" }]);
    const env = { OPENAI_API_KEY: SENTINEL_API_KEY, OPENAI_BASE_URL: scripted.baseURL, AGENT_MODEL: "scripted-model", NO_COLOR: "1" };
    const result = await runCliInProcess(["--schemas", schemas, "hi"], env);
    expect(result).toMatchObject({ code: 0, stdout: "after the retry\n" });
    const retryLines = result.stderr.split("\n").filter((line) => line.includes("retry 1 of"));
    expect(retryLines).toHaveLength(1);
    expect(retryLines[0]).not.toContain("waiting");
    expect(result.stderr).not.toContain("the server asks to wait");
  });
});
