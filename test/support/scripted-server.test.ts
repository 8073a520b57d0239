/** The scripted server is as strict as a picky gateway, records what it got, and plays its script. */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer({ script: () => ({ content: "ok" }) });
});
afterAll(() => server.close());

const system = { role: "system", content: "sys" } as const;
const user = { role: "user", content: "hi" } as const;
const call = (id: string, args: unknown = "{}") => ({ id, type: "function", function: { name: "add", arguments: args } });
const askedFor = (...ids: string[]) => ({ role: "assistant", content: null, tool_calls: ids.map((id) => call(id)) });
const answer = (id: string) => ({ role: "tool", tool_call_id: id, content: "3" });

async function post(body: unknown): Promise<{ status: number; error?: { message: string; type: string } }> {
  const response = await fetch(`${server.baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { error?: { message: string; type: string } };
  return { status: response.status, ...(json.error ? { error: json.error } : {}) };
}

const rejected: Array<[string, unknown[], string]> = [
  ["refusal echoed back", [system, user, { role: "assistant", content: "x", refusal: null }], "unknown parameter 'refusal' for a assistant message"],
  ["annotations", [system, user, { role: "assistant", content: "x", annotations: [] }], "unknown parameter 'annotations'"],
  ["audio", [system, user, { role: "assistant", content: "x", audio: null }], "unknown parameter 'audio'"],
  ["function_call", [system, user, { role: "assistant", content: "x", function_call: null }], "unknown parameter 'function_call'"],
  ["parsed", [system, user, { role: "assistant", content: "x", parsed: null }], "unknown parameter 'parsed'"],
  ["an unknown field on a user message", [system, { ...user, extra: 1 }], "unknown parameter 'extra' for a user message"],
  ["content null without tool calls", [system, user, { role: "assistant", content: null }], "an assistant message needs 'content' or 'tool_calls'"],
  ["an empty tool_calls array", [system, user, { role: "assistant", content: "x", tool_calls: [] }], "'tool_calls' must be a non-empty array when present"],
  ["arguments that are not a string", [system, user, { role: "assistant", content: null, tool_calls: [call("a", { a: 1 })] }, answer("a")], "function.arguments must be a string"],
  ["a stream index left on a tool call", [system, user, { role: "assistant", content: null, tool_calls: [{ ...call("a"), index: 0 }] }, answer("a")], "unknown parameter 'index'"],
  ["an empty tool call id", [system, user, askedFor(""), answer("")], ".id must be a non-empty string"],
  ["tool calls answered out of order", [system, user, askedFor("a", "b"), answer("b"), answer("a")], "tool call 'b' answered out of order (expected 'a')"],
  ["a tool call not answered before the next message", [system, user, askedFor("a", "b"), answer("a"), user], "tool calls not answered: b"],
  ["a tool call not answered at the end", [system, user, askedFor("a")], "end of messages: tool calls not answered: a"],
  ["a tool call answered twice", [system, user, askedFor("a"), answer("a"), answer("a")], "tool call 'a' answered twice"],
  ["a tool message for an unknown id", [system, user, askedFor("a"), answer("a"), answer("zzz")], "'tool_call_id' zzz does not answer any preceding tool call"],
  ["duplicate tool call ids", [system, user, askedFor("a", "a"), answer("a"), answer("a")], "duplicate tool call ids"],
  ["no messages", [], "'messages' must be a non-empty array"],
];

describe("strictness: 400 with an OpenAI-style error", () => {
  it.each(rejected)("%s", async (_label, messages, expected) => {
    const before = server.requests.length;
    const { status, error } = await post({ model: "m", messages });
    expect(status).toBe(400);
    expect(error?.type).toBe("invalid_request_error");
    expect(error?.message).toContain(expected);
    expect(server.requests[before]?.violations.join("; ")).toContain(expected);
  });

  it("a missing model", async () => {
    const { status, error } = await post({ messages: [user] });
    expect(status).toBe(400);
    expect(error?.message).toContain("missing required parameter: 'model'");
  });

  it("stream_options without stream", async () => {
    const { status, error } = await post({ model: "m", messages: [user], stream_options: { include_usage: true } });
    expect(status).toBe(400);
    expect(error?.message).toContain("'stream_options' is only allowed when 'stream' is true");
  });

  it("accepts a valid history with parallel calls answered in order, and text parts", async () => {
    const { status } = await post({
      model: "m",
      messages: [system, { role: "user", content: [{ type: "text", text: "hi" }] }, askedFor("a", "b"), answer("a"), answer("b"), { role: "assistant", content: "done" }, user],
    });
    expect(status).toBe(200);
  });

  it("flags a tools list that changes within a conversation, and rejects it when asked to", async () => {
    const tool = (description: string) => ({ type: "function", function: { name: "add", description, parameters: { type: "object", properties: {} } } });
    const first = [system, user];
    await post({ model: "m", messages: first, tools: [tool("Adds.")] });
    const second = await post({ model: "m", messages: [...first, { role: "assistant", content: "x" }, user], tools: [tool("Adds two numbers.")] });
    expect(second.status).toBe(200);
    expect(server.requests.at(-1)?.flags).toEqual([expect.stringContaining("the tools list differs from request")]);
    const unrelated = await post({ model: "m", messages: [system, { role: "user", content: "other" }], tools: [tool("Other.")] });
    expect(unrelated.status).toBe(200);
    expect(server.requests.at(-1)?.flags).toEqual([]);

    const picky = await startScriptedServer({ script: () => ({ content: "ok" }), rejectToolsChange: true });
    const sdk = new OpenAI({ apiKey: "k", baseURL: picky.baseURL, maxRetries: 0 });
    await sdk.chat.completions.create({ model: "m", messages: [user], tools: [tool("a")] as never });
    await expect(sdk.chat.completions.create({ model: "m", messages: [user], tools: [tool("b")] as never })).rejects.toThrow(/tools list differs/);
    await picky.close();
  });
});

describe("strict tool definitions, checked as OpenAI checks them", () => {
  const strictTool = (parameters: object, strict: unknown = true) => ({ type: "function", function: { name: "add", description: "Adds.", parameters, strict } });
  const keeps = { type: "object", properties: { a: { type: ["number", "null"] } }, required: ["a"], additionalProperties: false };

  it("400 naming the function and the first rule broken, like the real API", async () => {
    const optional = { type: "object", properties: { a: { type: "string", minLength: 1 } }, required: ["a"], additionalProperties: false };
    const { status, error } = await post({ model: "m", messages: [user], tools: [strictTool(optional)] });
    expect(status).toBe(400);
    expect(error?.message).toBe("Invalid schema for function 'add': In context=('properties', 'a'), 'minLength' is not permitted.");
  });

  it("accepts the same schema sent with strict: false, and a strict one that keeps the rules", async () => {
    expect((await post({ model: "m", messages: [user], tools: [strictTool({ type: "object", properties: { a: { type: "string", minLength: 1 } } }, false)] })).status).toBe(200);
    expect((await post({ model: "m", messages: [user], tools: [strictTool(keeps)] })).status).toBe(200);
  });

  it("refuses a strict flag that is not a boolean", async () => {
    const { status, error } = await post({ model: "m", messages: [user], tools: [strictTool(keeps, "yes")] });
    expect(status).toBe(400);
    expect(error?.message).toBe("tools[0].function.strict must be a boolean");
  });
});

describe("access", () => {
  it("401 for a wrong key and 404 model_not_found for an unknown model", async () => {
    const guarded = await startScriptedServer({ script: () => ({ content: "ok" }), apiKey: "right", models: ["known"] });
    const sdk = (apiKey: string) => new OpenAI({ apiKey, baseURL: guarded.baseURL, maxRetries: 0 });
    await expect(sdk("wrong").chat.completions.create({ model: "known", messages: [user] })).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });
    await expect(sdk("right").chat.completions.create({ model: "other", messages: [user] })).rejects.toMatchObject({ status: 404, code: "model_not_found" });
    const ok = await sdk("right").chat.completions.create({ model: "known", messages: [user] });
    expect(ok.choices[0]?.message.content).toBe("ok");
    expect(guarded.requests.map((r) => r.headers.authorization)).toEqual(["Bearer wrong", "Bearer right", "Bearer right"]);
    await guarded.close();
  });
});

describe("script and recording", () => {
  it("plays list steps in order, answers 400 when they run out, and lets a test wait for requests", async () => {
    const scripted = await startScriptedServer({ script: [{ content: "one" }, { content: "two" }] });
    const sdk = new OpenAI({ apiKey: "k", baseURL: scripted.baseURL, maxRetries: 0 });
    const waiting = scripted.waitForRequests(2);
    const replies = [];
    for (let i = 0; i < 2; i += 1) replies.push((await sdk.chat.completions.create({ model: "m", messages: [user] })).choices[0]?.message.content);
    expect(replies).toEqual(["one", "two"]);
    expect((await waiting).length).toBe(2);
    expect(scripted.remainingSteps).toBe(0);
    await expect(sdk.chat.completions.create({ model: "m", messages: [user] })).rejects.toThrow(/no script step left for request #3/);
    expect(scripted.requests[0]?.body?.messages).toEqual([user]);
    await scripted.close();
  });

  it("streams tool-call arguments over many chunks, with usage in a final chunk without choices", async () => {
    server.setScript([{ toolCalls: [{ id: "c1", name: "add", arguments: '{"a":1,"b":2}' }], usage: { prompt: 3, completion: 2, cached: 1 }, stream: { chunkSize: 2 } }]);
    const sdk = new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0 });
    const stream = await sdk.chat.completions.create({ model: "m", messages: [user], stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const argumentDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls?.map((t) => t.function?.arguments) ?? []);
    expect(argumentDeltas.length).toBeGreaterThan(5);
    expect(argumentDeltas.join("")).toBe('{"a":1,"b":2}');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 1 } } });
    server.setScript(() => ({ content: "ok" }));
  });

  it("closes while a response is stalled", async () => {
    const stalling = await startScriptedServer({ script: () => ({ fault: "stall" }) });
    const sdk = new OpenAI({ apiKey: "k", baseURL: stalling.baseURL, maxRetries: 0 });
    const pending = sdk.chat.completions.create({ model: "m", messages: [user] }).then(
      () => "resolved",
      () => "rejected",
    );
    await stalling.waitForRequests(1);
    await stalling.close();
    expect(await pending).toBe("rejected");
  });
});
