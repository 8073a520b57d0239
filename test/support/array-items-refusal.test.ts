/**
 * The scripted server refuses, as OpenAI does (Chat Completions and Responses, strict or not), a function
 * whose parameters hold an array schema without `items`, answering OpenAI's own error body to the real
 * SDK; Anthropic's Messages API takes it; `items: {}` is accepted everywhere.
 */
import fc from "fast-check";
import OpenAI, { APIError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingItemsProblem } from "../../src/scripted-server/array-items.js";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { arrayWithoutItems } from "./nested-arrays.js";

let server: ScriptedServer;
let client: OpenAI;
beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
  client = new OpenAI({ apiKey: "test", baseURL: server.baseURL, maxRetries: 0 });
});
afterAll(() => server.close());

const plain = (name: string) => ({ type: "function" as const, function: { name, parameters: { type: "object", properties: { a: { type: "string" } } } } });

async function refusal(send: () => Promise<unknown>): Promise<unknown> {
  const error = await send().then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(APIError);
  expect((error as APIError).status).toBe(400);
  return (error as APIError).error;
}

describe("a Chat Completions function holding an array without items", () => {
  it.each([
    ["a member", { configs: { type: "array", description: "pairs" } }, "In context=('properties', 'configs'), array schema missing items."],
    ["an array's items", { values: { type: "array", items: { type: "array" } } }, "In context=('properties', 'values', 'items'), array schema missing items."],
    ["a type list naming array", { interaction: { type: ["string", "array"] } }, "In context=('properties', 'interaction', 'type', '1'), array schema missing items."],
  ])("in %s is refused with OpenAI's body, strict or not", async (_where, properties: Record<string, unknown>, context: string) => {
    for (const strict of [undefined, false, true]) {
      server.setScript([{ content: "never" }]);
      const parameters = { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
      const tools = [plain("a"), plain("b"), plain("c"), plain("d"), { type: "function" as const, function: { name: "kafka_admin_topics", parameters, ...(strict !== undefined ? { strict } : {}) } }];
      const body = await refusal(() => client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], tools }));
      expect(body).toEqual({ message: `Invalid schema for function 'kafka_admin_topics': ${context}`, type: "invalid_request_error", param: "tools[4].function.parameters", code: "invalid_function_parameters" });
    }
  });

  it("is accepted with items: {}", async () => {
    server.setScript([{ content: "fine" }]);
    const tools = [{ type: "function" as const, function: { name: "t", parameters: { type: "object", properties: { configs: { type: "array", items: {} } } } } }];
    const answer = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], tools });
    expect(answer.choices[0]?.message.content).toBe("fine");
  });
});

describe("a Responses API function holding an array without items", () => {
  it("is refused with the same message, the param naming tools[i].parameters", async () => {
    server.setScript([{ content: "never" }]);
    const tools = [
      { type: "function" as const, name: "a", parameters: { type: "object", properties: {} }, strict: false },
      { type: "function" as const, name: "kafka_admin_topics", parameters: { type: "object", properties: { configs: { type: "array" } } }, strict: false },
    ];
    const body = await refusal(() => client.responses.create({ model: "m", input: "hi", store: false, tools }));
    expect(body).toEqual({
      message: "Invalid schema for function 'kafka_admin_topics': In context=('properties', 'configs'), array schema missing items.",
      type: "invalid_request_error",
      param: "tools[1].parameters",
      code: "invalid_function_parameters",
    });
  });
});

describe("an Anthropic tool holding an array without items", () => {
  it("is accepted, as Anthropic's API does", async () => {
    server.setScript([{ content: "fine" }]);
    const before = server.requests.length;
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "test" },
      body: JSON.stringify({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "hi" }], tools: [{ name: "t", input_schema: { type: "object", properties: { configs: { type: "array" } } } }] }),
    });
    expect(response.status).toBe(200);
    expect(server.requests[before]?.violations).toEqual([]);
  });
});

describe("the context of an array without items, at any depth", () => {
  it("names every step from the parameters to it, then its type list's index", () => {
    fc.assert(
      fc.property(arrayWithoutItems, ({ schema, withItems, context }) => {
        const parts = context.map((part) => `'${part}'`);
        expect(missingItemsProblem(schema)).toBe(`In context=(${parts.join(", ")}${parts.length === 1 ? "," : ""}), array schema missing items.`);
        expect(missingItemsProblem(withItems)).toBeUndefined();
      }),
    );
  });
});
