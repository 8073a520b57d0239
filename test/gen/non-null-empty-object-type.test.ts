import { describe, expect, it } from "vitest";
import { compileStrict, generateTool, parametersOf } from "./support.js";

/**
 * TypeScript's `{}`: every JSON type but null, in strict Ajv's form (one `anyOf` branch per type,
 * sorted); the array branch has `items: {}`, as OpenAI refuses an array schema without items.
 */
const anyButNull = [{ type: "array", items: {} }, { type: "boolean" }, { type: "number" }, { type: "object" }, { type: "string" }];

describe("a parameter or member of type {}", () => {
  const { generation, messages } = generateTool([
    "/**",
    " * Stores a value.",
    " * @param value Any value but null.",
    " */",
    "export function store(value: {}): void {}",
    "",
    "/**",
    " * Keeps things.",
    " * @param opts Options.",
    " * @param opts.short A short text or any other value. @minLength 1",
    " */",
    "export function keep(opts: { /** A tag. */ tag: {} | null; list: {}[]; short: {}; o: object; u?: unknown }): { meta: {} } { return { meta: 1 }; }",
    "",
    "/** Echoes. */",
    "export function echo(): {} { return 1; }",
    "",
  ].join("\n"));
  const file = generation.file!;

  it("admits every JSON value but null", () => {
    const value = parametersOf(file, "store").properties.value!;
    expect(value).toEqual({ description: "Any value but null.", anyOf: anyButNull });
    const { validate, logged } = compileStrict(value);
    expect(logged).toEqual([]);
    expect(["x", 0, true, {}, { a: 1 }, [], [null]].map(validate)).toEqual([true, true, true, true, true, true, true]);
    expect(validate(null)).toBe(false);
  });

  it("as a member, in a union with null and as array elements; a typed tag goes to its branch; object and unknown stay as they were", () => {
    const { required, ...opts } = parametersOf(file, "keep").properties.opts!;
    // Which members are required is the point here, not the order they are listed in.
    expect([...(required as string[])].sort()).toEqual(["list", "o", "short", "tag"]);
    expect(opts).toEqual({
      type: "object",
      description: "Options.",
      properties: {
        tag: { description: "A tag.", anyOf: [{ type: "null" }, { anyOf: anyButNull }] },
        list: { type: "array", items: { anyOf: anyButNull } },
        short: { description: "A short text or any other value.", anyOf: [...anyButNull.slice(0, 4), { type: "string", minLength: 1 }] },
        o: { type: "object", properties: {}, additionalProperties: true },
        u: {},
      },
      additionalProperties: false,
    });
    for (const tool of file.tools) expect(compileStrict(tool.function.parameters).logged).toEqual([]);
  });

  it("in a returned object is the same; a return type of {} is not an object, so it gets no output schema", () => {
    expect(file.outputs).toEqual({
      keep: { type: "object", properties: { meta: { anyOf: anyButNull } }, additionalProperties: false, required: ["meta"] },
    });
  });

  it("has no strict form: the tool is offered with strict: false and one warning, and unknown keeps its own warning", () => {
    expect(file.strictTools!.find((tool) => tool.function.name === "store")!.function.strict).toBe(false);
    expect(messages).toEqual([
      // The array branch's elements (`items: {}`) may be anything, which strict mode cannot say: it comes first, before the open object.
      'tools/t.ts:5:23 warning: tool "store" is offered with strict: false in strict mode: parameter "value" at value[] accepts any JSON value (its type is unknown or any), which strict mode cannot express (and 1 more); the model\'s arguments are still validated',
      'tools/t.ts:12:22 warning: tool "keep" is offered with strict: false in strict mode: parameter "opts" at opts.tag[] accepts any JSON value (its type is unknown or any), which strict mode cannot express (and 7 more); the model\'s arguments are still validated',
      'tools/t.ts:12:94 warning: parameter "opts" of tool "keep" has type "unknown" at opts.u, so any JSON value is accepted; a precise type lets the model and the validator do better',
    ]);
  });
});
