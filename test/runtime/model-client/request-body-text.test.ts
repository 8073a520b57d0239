/**
 * The request bodies of the native dialects, each message converted once and reused on later requests:
 * the Responses body (written as JSON text) byte for byte what `JSON.stringify` of the body object gives,
 * the Anthropic parts what converting the whole history afresh gives (one cache breakpoint, on the newest
 * block), on every request of a growing history; a message a program edits in place between requests is
 * sent as edited.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { leadingSystem } from "../../../src/runtime/loop/provider-parts.js";
import type { ChatMessage, ProviderPart, ToolResultItem } from "../../../src/runtime/loop/messages.js";
import { AnthropicRequestWriter } from "../../../src/runtime/model/anthropic/anthropic-request.js";
import { createResponsesTurnRequester } from "../../../src/runtime/model/responses/responses-client.js";
import { ResponsesBodyWriter, responsesInputItems, responsesTool, type ResponsesBodySettings } from "../../../src/runtime/model/responses/responses-request.js";
import type { ToolDefinition } from "../../../src/shared/schemas-file.js";
import { API_KEY, PROMPT, TOOLS, useScriptedServer } from "./harness.js";

const ctx = useScriptedServer();

const text = fc.string({ maxLength: 20 });
const item: fc.Arbitrary<ToolResultItem> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text }),
  fc.record({ type: fc.constant("image" as const), mimeType: fc.constantFrom("image/png", "image/tiff"), data: fc.base64String({ maxLength: 12 }) }),
  fc.record({ type: fc.constant("audio" as const), mimeType: fc.constant("audio/wav"), data: fc.base64String({ maxLength: 12 }) }),
);
const part: fc.Arbitrary<ProviderPart> = fc.oneof(
  fc.record({ provider: fc.constant("responses" as const), item: fc.record({ type: fc.constant("reasoning"), id: fc.string({ minLength: 1, maxLength: 8 }), summary: fc.constant([]), encrypted_content: fc.base64String() }) }),
  fc.record({ provider: fc.constant("anthropic" as const), block: fc.record({ type: fc.constant("thinking"), thinking: text, signature: fc.base64String() }) }),
);
const call = fc.record({ id: fc.string({ minLength: 1, maxLength: 10 }), type: fc.constant("function" as const), function: fc.record({ name: fc.string({ minLength: 1, maxLength: 10 }), arguments: fc.oneof(fc.json(), text) }) });
const message: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.record({ role: fc.constantFrom("system" as const, "user" as const), content: text }),
  fc.record({ role: fc.constant("assistant" as const), content: text, parts: fc.array(part, { maxLength: 2 }) }, { requiredKeys: ["role", "content"] }),
  fc.record({ role: fc.constant("assistant" as const), content: fc.option(text), tool_calls: fc.array(call, { minLength: 1, maxLength: 3 }) }) as fc.Arbitrary<ChatMessage>,
  fc.record(
    { role: fc.constant("tool" as const), tool_call_id: fc.string({ minLength: 1, maxLength: 10 }), content: text, status: fc.constantFrom("tool_error" as const, "timeout" as const), items: fc.array(item, { minLength: 1, maxLength: 3 }) },
    { requiredKeys: ["role", "tool_call_id", "content"] },
  ),
);
const tool: fc.Arbitrary<ToolDefinition> = fc.record({
  type: fc.constant("function" as const),
  function: fc.record({ name: fc.string({ minLength: 1, maxLength: 10 }), description: text, parameters: fc.constant({ type: "object" as const, properties: { a: { type: "string" } }, required: [] }), strict: fc.boolean() }, { requiredKeys: ["name", "description", "parameters"] }),
});
const responsesSettings: fc.Arbitrary<ResponsesBodySettings> = fc.record(
  { model: fc.string({ maxLength: 10 }), stream: fc.boolean(), reasoningEffort: fc.constantFrom("low" as const, "medium" as const, "high" as const), maxTokens: fc.integer({ min: 1, max: 100_000 }) },
  { requiredKeys: ["model", "stream"] },
);

/** The body as an object, in the order the API documents it: what the SDK would have serialised. */
function responsesBody(history: readonly ChatMessage[], tools: readonly ToolDefinition[], settings: ResponsesBodySettings): unknown {
  const { system, rest } = leadingSystem(history);
  return {
    model: settings.model,
    input: rest.flatMap(responsesInputItems),
    ...(system.length > 0 ? { instructions: system.join("\n\n") } : {}),
    ...(tools.length > 0 ? { tools: tools.map(responsesTool) } : {}),
    store: false,
    include: ["reasoning.encrypted_content"],
    ...(settings.reasoningEffort !== undefined ? { reasoning: { effort: settings.reasoningEffort, summary: "auto" } } : {}),
    ...(settings.maxTokens !== undefined ? { max_output_tokens: settings.maxTokens } : {}),
    stream: settings.stream,
  };
}

describe("Responses request bodies", () => {
  it("are JSON.stringify of the body on every request of a growing history, one writer throughout", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), fc.array(tool, { maxLength: 3 }), responsesSettings, fc.integer({ min: 1, max: 4 }), (history, tools, settings, step) => {
        const writer = new ResponsesBodyWriter();
        for (let end = 0; end <= history.length; end += step) {
          const sent = history.slice(0, end);
          expect(writer.text(sent, tools, settings)).toBe(JSON.stringify(responsesBody(sent, tools, settings)));
        }
      }),
    );
  });

  it("send a message edited in place between requests as it is now, and the tools as they are now", () => {
    const writer = new ResponsesBodyWriter();
    const result: ChatMessage = { role: "tool", tool_call_id: "call_1", content: "first" };
    const history: ChatMessage[] = [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "add", arguments: "{}" } }] }, result];
    const tools = [...TOOLS];
    const settings = { model: "m", stream: true };
    writer.text(history, tools, settings);
    result.content = "second";
    tools.push({ type: "function", function: { name: "more", description: "More.", parameters: { type: "object", properties: {}, required: [] } } });
    expect(writer.text(history, tools, settings)).toBe(JSON.stringify(responsesBody(history, tools, settings)));
    delete (history[1] as { content?: unknown }).content;
    expect(writer.text(history, tools, settings)).toBe(JSON.stringify(responsesBody(history, tools, settings)));
  });

  it.each([true, false])("reach the server as JSON, its fields in the documented order (stream %s)", async (stream) => {
    const requester = createResponsesTurnRequester({ apiKey: API_KEY, baseURL: ctx.server.baseURL, maxRetries: 0, reasoningEffort: "low", maxTokens: 99 });
    const before = ctx.server.requests.length;
    ctx.server.setScript([{ content: "ok" }]);
    const turn = await requester({ model: "m", messages: PROMPT, tools: TOOLS, stream, signal: new AbortController().signal, onText: () => {} });
    expect(turn.message.content).toBe("ok");
    const seen = ctx.server.requests[before];
    expect(seen?.violations).toEqual([]);
    expect(seen?.headers["content-type"]).toBe("application/json");
    expect(Object.keys(seen?.body ?? {})).toEqual(["model", "input", "instructions", "tools", "store", "include", "reasoning", "max_output_tokens", "stream"]);
    expect(seen?.rawBody).toBe(JSON.stringify(responsesBody(PROMPT, TOOLS, { model: "m", stream, reasoningEffort: "low", maxTokens: 99 })));
  });
});

describe("Anthropic request parts", () => {
  const fresh = (history: readonly ChatMessage[], tools: readonly ToolDefinition[]) => JSON.stringify(new AnthropicRequestWriter().parts(history, tools));

  it("are what a fresh conversion gives on every request of a growing history, one writer throughout", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), fc.array(tool, { maxLength: 3 }), fc.integer({ min: 1, max: 4 }), (history, tools, step) => {
        const writer = new AnthropicRequestWriter();
        for (let end = 0; end <= history.length; end += step) {
          const sent = history.slice(0, end);
          const text = JSON.stringify(writer.parts(sent, tools));
          expect(text).toBe(fresh(sent, tools));
          expect((text.match(/"cache_control"/g) ?? []).length).toBeLessThanOrEqual(2);
        }
      }),
    );
  });

  it("send a message edited in place between requests as it is now", () => {
    const writer = new AnthropicRequestWriter();
    const call: ChatMessage = { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "add", arguments: '{"a":1}' } }] };
    const history: ChatMessage[] = [{ role: "user", content: "hi" }, call, { role: "tool", tool_call_id: "call_1", content: "3" }];
    writer.parts(history, TOOLS);
    call.content = "thinking aloud";
    (history[2] as { status?: string }).status = "tool_error";
    expect(JSON.stringify(writer.parts(history, TOOLS))).toBe(fresh(history, TOOLS));
    expect(JSON.stringify(writer.parts(history, TOOLS))).toContain('"is_error":true');
  });
});
