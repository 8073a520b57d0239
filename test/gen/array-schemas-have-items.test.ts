import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonSchema, JsonValue, SchemasFile } from "../../src/shared/schemas-file.js";
import { forEachSchema } from "../../src/shared/schema-walk.js";
import { compileStrict, generateTool, parametersOf } from "./support.js";

/**
 * OpenAI refuses a function whose parameters hold an array schema without `items` ("array schema
 * missing items", a 400 that ends the agent's run), strict or not; `items: {}` (any element) it accepts.
 */

/** Every schema in the file (parameters, strict parameters, outputs) that can be an array and has no `items`, by tool. */
function arraysWithoutItems(file: SchemasFile): { where: string; schema: JsonSchema }[] {
  const found: { where: string; schema: JsonSchema }[] = [];
  const check = (where: string, root: JsonSchema) =>
    forEachSchema(root, (node) => {
      const types: JsonValue[] = Array.isArray(node.type) ? node.type : [node.type ?? null];
      if (types.includes("array") && node.items === undefined) found.push({ where, schema: node });
    });
  for (const tool of file.tools) check(`tools ${tool.function.name}`, tool.function.parameters);
  for (const tool of file.strictTools ?? []) check(`strictTools ${tool.function.name}`, tool.function.parameters);
  for (const [name, schema] of Object.entries(file.outputs ?? {})) check(`outputs ${name}`, schema);
  return found;
}

const anyButNull = [{ type: "array", items: {} }, { type: "boolean" }, { type: "number" }, { type: "object" }, { type: "string" }];

describe("every array schema gen writes has items", () => {
  const { generation, messages } = generateTool([
    "/** Empty. @param x Nothing. */",
    "export function empty(x: []): void {}",
    "/** Read-only empty. @param x Nothing. */",
    "export function frozen(x: readonly []): void {}",
    "/** Optional element. @param x At most a name. */",
    "export function maybe(x: [x?: string]): void {}",
    "/** Anything. @param x Any value but null. */",
    "export function any(x: {}): void {}",
    "/** Nested. @param rows Rows. @param lists Lists. @param either Either. */",
    "export function nested(rows: { n: [] }[], lists: Array<[]>, either: [] | string): { n: []; v: {}; w: [x?: 1] } { return { n: [], v: 1, w: [] }; }",
    "type Tree = { kids: Tree[]; none: []; any: {} };",
    "/** Recursive. @param t A tree. */",
    "export function tree(t: Tree): void {}",
    "",
  ].join("\n"));
  const file = generation.file!;
  const x = (tool: string) => parametersOf(file, tool).properties.x;

  it("an empty tuple, read-only or not, is an array of no items with items: {}", () => {
    const emptyTuple = { type: "array", description: "Nothing.", items: {}, minItems: 0, maxItems: 0 };
    expect(x("empty")).toEqual(emptyTuple);
    expect(x("frozen")).toEqual(emptyTuple);
    // Byte order as written: items sits between type/description and the item counts.
    expect(JSON.stringify(x("empty"))).toBe('{"type":"array","description":"Nothing.","items":{},"minItems":0,"maxItems":0}');
    const { validate, logged } = compileStrict(x("empty")!);
    expect(logged).toEqual([]);
    expect([[], [1], ["a", "b"]].map(validate)).toEqual([true, false, false]);
  });

  it("an optional tuple's empty branch has items: {}", () => {
    expect(JSON.stringify(x("maybe"))).toBe(
      '{"description":"At most a name.","anyOf":[{"type":"array","items":{},"maxItems":0},{"type":"array","items":[{"type":"string","title":"x"}],"minItems":1,"maxItems":1}]}',
    );
    const { validate, logged } = compileStrict(x("maybe")!);
    expect(logged).toEqual([]);
    expect([[], ["a"], [1], ["a", "b"]].map(validate)).toEqual([true, true, false, false]);
  });

  it("{}'s array branch has items: {} and still admits any array", () => {
    expect(x("any")).toEqual({ description: "Any value but null.", anyOf: anyButNull });
    const { validate } = compileStrict(x("any")!);
    expect([[], [null, 1, "a"]].map(validate)).toEqual([true, true]);
  });

  it("an empty tuple nested in an array, an object, a union or a returned object has items: {}", () => {
    const nestedEmpty = { type: "array", items: {}, minItems: 0, maxItems: 0 };
    const { rows, lists, either } = parametersOf(file, "nested").properties;
    expect(rows).toEqual({
      type: "array",
      description: "Rows.",
      items: { type: "object", properties: { n: nestedEmpty }, additionalProperties: false, required: ["n"] },
    });
    expect(lists).toEqual({ type: "array", description: "Lists.", items: nestedEmpty });
    expect(either).toEqual({ description: "Either.", anyOf: [nestedEmpty, { type: "string" }] });
    expect(file.outputs!.nested).toEqual({
      type: "object",
      properties: {
        n: nestedEmpty,
        v: { anyOf: anyButNull },
        w: { anyOf: [{ type: "array", items: {}, maxItems: 0 }, { type: "array", items: [{ type: "number", title: "x", const: 1 }], minItems: 1, maxItems: 1 }] },
      },
      additionalProperties: false,
      required: ["n", "v", "w"],
    });
  });

  it("holds over the whole output: parameters, strict parameters, outputs and definitions", () => {
    expect(file.tools.map((tool) => tool.function.name)).toEqual(["any", "empty", "frozen", "maybe", "nested", "tree"]);
    expect(parametersOf(file, "tree").definitions).toBeDefined();
    expect(arraysWithoutItems(file)).toEqual([]);
    expect(messages.filter((message) => message.includes(" error: "))).toEqual([]);
  });

  it("a count tag on an empty tuple still reads it as a tuple, on the parameter and on a member", () => {
    const tagged = generateTool([
      "/** Empty. @param x Nothing. @maxItems 1 */",
      "export function empty(x: []): void {}",
      "/** Member. @param o Options. @param o.x At most a name. @minItems 1 */",
      "export function member(o: { x: [x?: string] }): void {}",
      "",
    ].join("\n"));
    expect(tagged.messages.filter((message) => !message.includes("strict mode"))).toEqual([
      'tools/t.ts:2:23 warning: @maxItems 1 changes nothing: parameter "x" of tool "empty" is a tuple of 0 items, which already meets it; remove the tag',
    ]);
    // `@minItems 1` rules out the empty branch, leaving the one-name tuple.
    expect(parametersOf(tagged.generation.file!, "member").properties.o!.properties).toEqual({
      x: { type: "array", description: "At most a name.", items: [{ type: "string", title: "x" }], minItems: 1, maxItems: 1 },
    });
  });
});

/** Type expressions built from the types whose arrays once lacked items, nested in the ways a tool can. */
const typeExpression: fc.Arbitrary<string> = fc.letrec<{ type: string }>((tie) => ({
  type: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("[]", "readonly []", "{}", "[x?: string]", "[a?: number, b?: boolean]", "string", "number"),
    tie("type").map((inner) => `Array<${inner}>`),
    tie("type").map((inner) => `{ m: ${inner} }`),
    tie("type").map((inner) => `{ m?: ${inner} }`),
    fc.tuple(tie("type"), tie("type")).map(([a, b]) => `(${a}) | (${b})`),
    tie("type").map((inner) => `(${inner}) | null`),
  ),
})).type;

describe("any mix of empty tuples, optional tuples and {}", () => {
  it("gives no array schema without items anywhere in the output", () => {
    fc.assert(
      fc.property(fc.array(typeExpression, { minLength: 1, maxLength: 8 }), (types) => {
        const source = types.map((type, index) => `/** T${index}. @param x X. */\nexport function t${index}(x: ${type}): { r: ${type} } { return { r: x }; }\n`).join("");
        const { generation, messages } = generateTool(source);
        expect(messages.filter((message) => message.includes(" error: "))).toEqual([]);
        expect(arraysWithoutItems(generation.file!)).toEqual([]);
      }),
      { numRuns: 8 },
    );
  });
});
