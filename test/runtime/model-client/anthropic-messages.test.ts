/**
 * What only Anthropic's Messages API has, through the real `@anthropic-ai/sdk` against the strict scripted
 * server: thinking blocks kept byte for byte across tool calls, prompt-cache breakpoints and cached-token
 * usage, the stop reasons (`max_tokens`, `refusal`, `pause_turn`, the context window), tool-call ids it
 * would refuse, `is_error`, and strict tool use within its rules.
 */
import { describe, expect, it } from "vitest";
import { createAgent } from "../../../src/runtime/loop/agent.js";
import { createAnthropicTurnRequester, type AnthropicRequesterOptions } from "../../../src/runtime/model/anthropic/anthropic-client.js";
import { anthropicToolId } from "../../../src/runtime/model/anthropic/anthropic-request.js";
import { ModelRequestError } from "../../../src/runtime/model/model-errors.js";
import type { ChatMessage } from "../../../src/runtime/loop/messages.js";
import type { ToolDefinition } from "../../../src/shared/schemas-file.js";
import { httpError, type Script } from "../../../src/scripted-server/scripted-server.js";
import { fixtureExecutor, tempDir } from "../../cli/support.js";
import { API_KEY, PROMPT, TOOLS, playTurn, useScriptedServer } from "./harness.js";

const ctx = useScriptedServer();

function requester(options: Partial<AnthropicRequesterOptions> = {}) {
  return createAnthropicTurnRequester({ apiKey: API_KEY, baseURL: ctx.server.url, maxRetries: 1, idleTimeoutMs: 2_000, ...options });
}

function turn(script: Script, options: Partial<AnthropicRequesterOptions> = {}, messages: readonly ChatMessage[] = PROMPT, stream = true, tools: readonly ToolDefinition[] = TOOLS) {
  return playTurn(ctx.server, requester(options), script, { messages, stream, tools });
}

describe.each([
  ["streaming", true],
  ["non-streaming", false],
])("%s", (_label, stream) => {
  it("thinking and redacted thinking come back byte for byte before the tool results, and the strict server accepts them", async () => {
    ctx.server.setScript([
      { thinking: "The user wants an echo; call echo.", redactedThinking: "EncryptedOpaqueData==", content: "Echoing.", toolCalls: [{ id: "toolu_1", name: "echo", arguments: { text: "hi" } }] },
      { content: "done" },
    ]);
    const before = ctx.server.requests.length;
    const agent = createAgent({ requestTurn: requester({ thinkingBudget: 2048 }), executor: fixtureExecutor(), model: "claude-test", systemPrompt: "sys", workspace: tempDir(), stream });
    const result = await agent.run("echo hi");
    expect(result).toMatchObject({ kind: "answer", answer: "done" });
    const [first, second] = ctx.server.requests.slice(before);
    expect([first?.violations, second?.violations]).toEqual([[], []]);
    expect(first?.body).toMatchObject({ max_tokens: 8192 + 2048, thinking: { type: "enabled", budget_tokens: 2048 }, system: "sys" });
    const assistant = (second?.body?.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>)[1];
    expect(assistant?.content.slice(0, 2)).toEqual([
      { type: "thinking", thinking: "The user wants an echo; call echo.", signature: expect.any(String) },
      { type: "redacted_thinking", data: "EncryptedOpaqueData==" },
    ]);
    // Never part of the answer, kept in history as received.
    expect(agent.messages[2]).toMatchObject({ role: "assistant", content: "Echoing.", parts: [{ provider: "anthropic", block: { type: "thinking" } }, { provider: "anthropic", block: { type: "redacted_thinking" } }] });
  });

  it("a thinking block altered in history is refused by the strict server, as the API refuses it", async () => {
    const issued = await turn([{ thinking: "plan", toolCalls: [{ id: "toolu_alt", name: "add", arguments: { a: 1, b: 2 } }] }], { thinkingBudget: 1024 }, PROMPT, stream);
    expect(issued.result).not.toBeInstanceOf(ModelRequestError);
    const message = (issued.result as { message: ChatMessage }).message;
    const altered = JSON.parse(JSON.stringify(message).replace('"plan"', '"PLAN"')) as ChatMessage;
    const resent = await turn([{ content: "x" }], { thinkingBudget: 1024 }, [...PROMPT, altered, { role: "tool", tool_call_id: "toolu_alt", content: "3" }], stream);
    expect(resent.result).toMatchObject({ kind: "http", status: 400 });
    expect(resent.requests[0]?.violations.join(" ")).toMatch(/cannot be modified/);
  });

  it("cache breakpoints on the last tool and the newest message; usage counts every input token, cached = cache reads", async () => {
    const tools: ToolDefinition[] = [...TOOLS, { type: "function", function: { ...TOOLS[0]!.function, name: "sum" } }];
    const { result, requests } = await turn([{ content: "3", usage: { prompt: 1000, completion: 7, cached: 600, cacheWritten: 300 } }], {}, PROMPT, stream, tools);
    const body = requests[0]?.body as { tools: Array<Record<string, unknown>>; messages: Array<{ content: Array<Record<string, unknown>> }> };
    expect(body.tools.map((tool) => tool.cache_control)).toEqual([undefined, { type: "ephemeral" }]);
    expect(body.messages.at(-1)?.content.at(-1)).toEqual({ type: "text", text: "add 1 and 2", cache_control: { type: "ephemeral" } });
    expect(requests[0]?.rawBody.match(/cache_control/g)).toHaveLength(2);
    expect(result).toMatchObject({ usage: { promptTokens: 1000, completionTokens: 7, cachedTokens: 600 } });
  });

  it("stop reasons: max_tokens is length, end_turn and stop_sequence are stop, tool_use is tool_calls", async () => {
    expect((await turn([{ content: "cut", finishReason: "max_tokens" }])).result).toMatchObject({ finishReason: "length" });
    expect((await turn([{ content: "ok", finishReason: "stop_sequence" }])).result).toMatchObject({ finishReason: "stop" });
    expect((await turn([{ toolCalls: [{ id: "t1", name: "add", arguments: { a: 1, b: 2 } }] }])).result).toMatchObject({ finishReason: "tool_calls" });
  });

  it("a refusal keeps nothing of the text before it as an answer", async () => {
    const { result } = await turn([{ content: "I will not", finishReason: "refusal" }], {}, PROMPT, stream);
    expect(result).toMatchObject({ message: { role: "assistant", content: "" }, finishReason: "stop", refusal: "I will not" });
  });

  it("pause_turn: the paused content is sent back as it came and the request repeated; the pieces are one turn", async () => {
    const { result, requests } = await turn([{ content: "Searching… ", finishReason: "pause_turn", usage: { prompt: 10, completion: 2 } }, { content: "found it", usage: { prompt: 20, completion: 3 } }], {}, PROMPT, stream);
    expect(requests).toHaveLength(2);
    expect(requests.map((request) => request.violations)).toEqual([[], []]);
    const messages = requests[1]?.body?.messages as Array<{ role: string; content: unknown }>;
    expect(messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Searching… " }] });
    expect(result).toMatchObject({ message: { content: "Searching… found it" }, finishReason: "stop", usage: { promptTokens: 30, completionTokens: 5 } });
  });

  it("pause_turn at most 5 times a turn: then the stop reason is the loop's unknown one", async () => {
    const { result, requests } = await turn(() => ({ content: "more ", finishReason: "pause_turn" }), {}, PROMPT, stream);
    expect(requests).toHaveLength(6);
    expect(result).toMatchObject({ finishReason: "pause_turn" });
  });

  it("model_context_window_exceeded is a context-length refusal (the loop compacts)", async () => {
    const { result } = await turn([{ content: "so much", finishReason: "model_context_window_exceeded" }], {}, PROMPT, stream);
    expect(result).toMatchObject({ kind: "http", contextLengthExceeded: true, retryable: false });
  });

  it("input plus max_tokens over the window: asked again with the max_tokens that fits, else compaction", async () => {
    const tooMuch = httpError(400, "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000, decrease input length or `max_tokens` and try again");
    const fitted = await turn([tooMuch, { content: "fits" }], { maxTokens: 20_000 }, PROMPT, stream);
    expect(fitted.requests.map((request) => request.body?.max_tokens)).toEqual([20_000, 10_000]);
    expect(fitted.result).toMatchObject({ message: { content: "fits" } });
    const tight = httpError(400, "input length and `max_tokens` exceed context limit: 199500 + 20000 > 200000, decrease input length or `max_tokens` and try again");
    const refused = await turn([tight], { maxTokens: 20_000 }, PROMPT, stream);
    expect(refused.result).toMatchObject({ kind: "http", status: 400, contextLengthExceeded: true });
  });
});

describe("tool call ids and results", () => {
  const kimi = "functions.read_file:0";
  const history: ChatMessage[] = [
    ...PROMPT,
    { role: "assistant", content: null, tool_calls: [{ id: kimi, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }] },
    { role: "tool", tool_call_id: kimi, content: "The arguments for add were not valid", status: "invalid_arguments" },
  ];

  it("an id Anthropic would refuse is mapped deterministically when sent, the same for the call and its result", async () => {
    const { requests } = await turn([{ content: "ok" }], {}, history);
    expect(requests[0]?.violations).toEqual([]);
    const messages = requests[0]?.body?.messages as Array<{ content: Array<Record<string, unknown>> }>;
    const mapped = anthropicToolId(kimi);
    expect(mapped).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(mapped).toBe(anthropicToolId(kimi));
    expect(mapped).not.toBe(anthropicToolId("functions.read_file_0"));
    expect(messages[1]?.content[0]).toMatchObject({ type: "tool_use", id: mapped, input: { a: 1, b: 2 } });
    // Every outcome but ok is an error for the model.
    expect(messages[2]?.content[0]).toMatchObject({ type: "tool_result", tool_use_id: mapped, is_error: true });
  });

  it("an ok result carries no is_error", async () => {
    const ok: ChatMessage[] = [...history.slice(0, 3), { role: "tool", tool_call_id: kimi, content: "3" }];
    const { requests } = await turn([{ content: "ok" }], {}, ok);
    const messages = requests[0]?.body?.messages as Array<{ content: Array<Record<string, unknown>> }>;
    expect(messages[2]?.content[0]).toEqual({ type: "tool_result", tool_use_id: anthropicToolId(kimi), content: "3", cache_control: { type: "ephemeral" } });
  });
});

describe("strict tool use", () => {
  const strictTool = (parameters: ToolDefinition["function"]["parameters"]): ToolDefinition => ({ type: "function", function: { name: "pick", description: "Pick.", parameters, strict: true } });

  it("a strict definition within Anthropic's rules is sent with strict: true; one outside them lenient", async () => {
    const within = strictTool({ type: "object", properties: { a: { type: ["string", "null"] } }, required: ["a"], additionalProperties: false });
    const outside = strictTool({ type: "object", properties: { n: { type: "number", minimum: 1 } }, required: ["n"], additionalProperties: false });
    const first = await turn([{ content: "ok" }], {}, PROMPT, true, [within]);
    expect((first.requests[0]?.body?.tools as Array<Record<string, unknown>>)[0]).toMatchObject({ name: "pick", strict: true });
    const second = await turn([{ content: "ok" }], {}, PROMPT, true, [outside]);
    expect((second.requests[0]?.body?.tools as Array<Record<string, unknown>>)[0]).not.toHaveProperty("strict");
  });
});
