/**
 * What only OpenAI's Responses API has, through the real `openai` SDK against the strict scripted server:
 * stateless requests (`store: false`, instructions, function tools with `strict` written out), reasoning
 * items sent back byte for byte with their encrypted content, summaries reported apart from the answer,
 * `incomplete` and refusals, and the two SDK traps (a cut stream is never an answer; nothing the SDK adds
 * to a function call is echoed back).
 */
import { describe, expect, it } from "vitest";
import { createAgent } from "../../../src/runtime/loop/agent.js";
import { createResponsesTurnRequester, type ResponsesRequesterOptions } from "../../../src/runtime/model/responses/responses-client.js";
import { ModelRequestError } from "../../../src/runtime/model/model-errors.js";
import type { ChatMessage } from "../../../src/runtime/loop/messages.js";
import type { ToolDefinition } from "../../../src/shared/schemas-file.js";
import type { Script } from "../../../src/scripted-server/scripted-server.js";
import { fixtureExecutor, tempDir } from "../../cli/support.js";
import { API_KEY, PROMPT, TOOLS, playTurn, useScriptedServer } from "./harness.js";

const ctx = useScriptedServer();

function requester(options: Partial<ResponsesRequesterOptions> = {}) {
  return createResponsesTurnRequester({ apiKey: API_KEY, baseURL: ctx.server.baseURL, maxRetries: 1, idleTimeoutMs: 2_000, ...options } as ResponsesRequesterOptions);
}

function turn(script: Script, options: Partial<ResponsesRequesterOptions> = {}, stream = true, messages: readonly ChatMessage[] = PROMPT, tools: readonly ToolDefinition[] = TOOLS) {
  return playTurn(ctx.server, requester(options), script, { messages, stream, tools });
}

describe.each([
  ["streaming", true],
  ["non-streaming", false],
])("%s", (_label, stream) => {
  it("sends the system prompt as instructions, stateless, with encrypted reasoning included and strict written out per tool", async () => {
    const strict: ToolDefinition = { type: "function", function: { name: "pick", description: "Pick.", parameters: { type: "object", properties: {}, required: [], additionalProperties: false }, strict: true } };
    const { requests } = await turn([{ content: "3" }], { reasoningEffort: "low", maxTokens: 500 }, stream, PROMPT, [...TOOLS, strict]);
    expect(requests[0]?.violations).toEqual([]);
    expect(requests[0]?.body).toMatchObject({
      instructions: "sys",
      input: [{ type: "message", role: "user", content: "add 1 and 2" }],
      store: false,
      include: ["reasoning.encrypted_content"],
      reasoning: { effort: "low", summary: "auto" },
      max_output_tokens: 500,
      tools: [
        { type: "function", name: "add", strict: false },
        { type: "function", name: "pick", strict: true },
      ],
    });
  });

  it("reasoning items come back byte for byte across tool calls; their summaries go to the listener, never into the answer", async () => {
    ctx.server.setScript([{ thinking: "I should add them.", toolCalls: [{ id: "call_r1", name: "echo", arguments: '{"text":"hi"}' }] }, { content: "done" }]);
    const before = ctx.server.requests.length;
    const summaries: string[] = [];
    const agent = createAgent({ requestTurn: requester({ onReasoningSummary: (summary) => summaries.push(summary) }), executor: fixtureExecutor(), model: "gpt-test", systemPrompt: "sys", workspace: tempDir(), stream });
    expect(await agent.run("echo hi")).toMatchObject({ kind: "answer", answer: "done" });
    const [, second] = ctx.server.requests.slice(before);
    // The server refuses a reasoning item that differs from the one it issued, so acceptance is the byte-for-byte check.
    expect(second?.violations).toEqual([]);
    const input = second?.body?.input as Array<Record<string, unknown>>;
    expect(input.map((item) => item.type)).toEqual(["message", "reasoning", "function_call", "function_call_output"]);
    expect(input[1]).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text", text: "I should add them." }], encrypted_content: expect.any(String) });
    expect(input[2]).toEqual({ type: "function_call", call_id: "call_r1", name: "echo", arguments: '{"text":"hi"}' });
    expect(input[3]).toEqual({ type: "function_call_output", call_id: "call_r1", output: "echo: hi" });
    expect(summaries).toEqual(["I should add them."]);
  });

  it("incomplete for max_output_tokens is length, for content_filter content_filter; a refusal is a refusal", async () => {
    expect((await turn([{ content: "cut", finishReason: "length" }], {}, stream)).result).toMatchObject({ finishReason: "length" });
    expect((await turn([{ content: "", finishReason: "content_filter" }], {}, stream)).result).toMatchObject({ finishReason: "content_filter" });
    expect((await turn([{ refusal: "I can't help with that." }], {}, stream)).result).toMatchObject({ message: { content: "" }, refusal: "I can't help with that." });
  });

  it("a function_call_output without its function_call is refused by the strict server", async () => {
    const orphan: ChatMessage[] = [...PROMPT, { role: "tool", tool_call_id: "call_nowhere", content: "3" }];
    const { result, requests } = await turn([{ content: "x" }], {}, stream, orphan);
    expect(result).toMatchObject({ kind: "http", status: 400 });
    expect(requests[0]?.violations).toContain("No tool call found for function call output with call_id call_nowhere.");
  });
});

describe("the SDK's traps", () => {
  it("a stream cut before response.completed is never an answer: dropped and resent", async () => {
    const { result, requests } = await turn([{ content: "partial answer", stream: { done: false } }, { content: "the real answer" }], {}, true);
    expect(requests).toHaveLength(2);
    expect(result).toMatchObject({ message: { content: "the real answer" } });
  });

  it("the server refuses parsed_arguments echoed back, and the requester never sends it", async () => {
    const echoed = { type: "function_call", call_id: "c1", name: "add", arguments: "{}", parsed_arguments: {} };
    ctx.server.setScript([{ content: "x" }]);
    const response = await fetch(`${ctx.server.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ model: "m", input: [echoed, { type: "function_call_output", call_id: "c1", output: "3" }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("Unknown parameter: 'input[0].parsed_arguments'.");
    const { requests } = await turn([{ toolCalls: [{ id: "c2", name: "add", arguments: '{"a":1,"b":2}' }] }], {}, true);
    expect(requests[0]?.rawBody).not.toContain("parsed_arguments");
  });
});
