/**
 * A tool taking one destructured object: a literal default written at any depth of its pattern becomes
 * that member's `default` (and takes it out of its parent's `required`), as a top-level one does; a
 * computed one only makes the member optional; one reaching into a recursive type, or written inside an
 * array pattern, writes nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonSchema, JsonValue, SchemasFile } from "../../src/shared/schemas-file.js";
import { compileStrict, generateTool, parametersOf } from "./support.js";

/** The tools of one source file, each checked to compile in strict Ajv; errors fail the test. */
function generated(source: string): SchemasFile {
  const { generation, messages } = generateTool(source);
  expect(messages.filter((line) => line.includes(" error: "))).toEqual([]);
  const file = generation.file!;
  for (const tool of file.tools) expect(compileStrict(tool.function.parameters).logged).toEqual([]);
  return file;
}

function propertyOf(file: SchemasFile, tool: string, name: string): JsonSchema {
  return (parametersOf(file, tool).properties as Record<string, JsonSchema>)[name]!;
}

describe("defaults inside a nested destructuring pattern", () => {
  const file = generated([
    "interface Tree { name: string; kids?: Tree[] }",
    'type Branch = { kind: "a"; tag: string } | { kind: "b"; tag: string; x: number };',
    "",
    "/** Nested. @param filter The filter. */",
    'export function nested({ filter: { tag = "x", limit = 10 } = {} }: { filter?: { tag?: string; limit?: number } }): string { return tag + limit; }',
    "",
    "/** Deep. @param o O. */",
    'export const deep = ({ o: { tag: t = "x", "my-key": k = -2, 1.50: z = true, deeper: { n = null, list = [1, "a"], obj = { a: { b: false } } } = {}, when = Date.now() } }: { o: { tag: string; "my-key"?: number; 1.5?: boolean; deeper?: { n?: number | null; list?: (number | string)[]; obj?: { a: { b: boolean } } }; when: number } }): string => `${t}${k}${z}${n}${list}${obj}${when}`;',
    "",
    "/** Unions. @param b B. @param s S. */",
    "export function unions({ b: { tag = \"q\" }, s: { v = 1 } }: { b: Branch; s: { v?: string | number } }): string { return tag + v; }",
    "",
    "/** Skipped. @param tree T. @param pair P. */",
    'export function skipped({ tree: { name = "root" } = { name: "r" }, pair: [{ a = 1 } = { a: 2 }] = [] }: { tree?: Tree; pair?: { a?: number }[] }): string { return name + a; }',
    "",
    "/**",
    " * Tagged.",
    " * @param opts.inner.n The n.",
    " * @default 5",
    " */",
    "export function tagged({ inner: { n = 7 } }: { inner: { n: number } }): number { return n; }",
    "",
  ].join("\n"));

  it("gives each member of a nested object pattern its default, the pattern's own default kept", () => {
    expect(propertyOf(file, "nested", "filter")).toEqual({
      type: "object",
      description: "The filter.",
      properties: { tag: { type: "string", default: "x" }, limit: { type: "number", default: 10 } },
      additionalProperties: false,
      default: {},
    });
  });

  it("names members by property (renamed, quoted, numeric), at any depth; a computed default only leaves required", () => {
    expect(propertyOf(file, "deep", "o")).toEqual({
      type: "object",
      description: "O.",
      properties: {
        tag: { type: "string", default: "x" },
        "my-key": { type: "number", default: -2 },
        "1.5": { type: "boolean", default: true },
        deeper: {
          type: "object",
          properties: {
            n: { type: ["null", "number"], default: null },
            list: { type: "array", items: { anyOf: [{ type: "number" }, { type: "string" }] }, default: [1, "a"] },
            obj: {
              type: "object",
              properties: { a: { type: "object", properties: { b: { type: "boolean" } }, additionalProperties: false, required: ["b"] } },
              additionalProperties: false,
              required: ["a"],
              default: { a: { b: false } },
            },
          },
          additionalProperties: false,
          default: {},
        },
        when: { type: "number" },
      },
      additionalProperties: false,
    });
    expect(parametersOf(file, "deep").required).toEqual(["o"]);
  });

  it("puts the default on the member in every branch of a union that has it, and beside a union member's anyOf", () => {
    const branch = (kind: string, extra: object, required: string[]) => ({
      type: "object",
      properties: { kind: { type: "string", const: kind }, tag: { type: "string", default: "q" }, ...extra },
      additionalProperties: false,
      required,
    });
    expect(propertyOf(file, "unions", "b")).toEqual({
      description: "B.",
      anyOf: [branch("a", {}, ["kind"]), branch("b", { x: { type: "number" } }, ["kind", "x"])],
    });
    expect(propertyOf(file, "unions", "s")).toEqual({
      type: "object",
      description: "S.",
      properties: { v: { anyOf: [{ type: "string" }, { type: "number" }], default: 1 } },
      additionalProperties: false,
    });
  });

  it("writes nothing into a recursive type's shared definition, nor from inside an array pattern", () => {
    const parameters = parametersOf(file, "skipped");
    expect(propertyOf(file, "skipped", "tree")).toEqual({ $ref: "#/definitions/Tree", description: "T.", default: { name: "r" } });
    expect(parameters.definitions).toEqual({
      Tree: {
        type: "object",
        properties: { name: { type: "string" }, kids: { type: "array", items: { $ref: "#/definitions/Tree" } } },
        additionalProperties: false,
        required: ["name"],
      },
    });
    expect(propertyOf(file, "skipped", "pair")).toEqual({
      type: "array",
      description: "P.",
      items: { type: "object", properties: { a: { type: "number" } }, additionalProperties: false },
      default: [],
    });
  });

  it("wins over a @default tag of the same member, as a top-level default does", () => {
    expect(propertyOf(file, "tagged", "inner")).toEqual({
      type: "object",
      properties: { n: { type: "number", description: "The n.", default: 7 } },
      additionalProperties: false,
    });
  });

  it("reaches strictTools as the top-level defaults do: said in the description, the member nullable", () => {
    const strict = file.strictTools!.find((tool) => tool.function.name === "nested")!.function.parameters;
    expect((strict.properties as Record<string, JsonSchema>).filter).toEqual({
      type: ["object", "null"],
      description: "The filter. Default: {}.",
      properties: {
        tag: { type: ["string", "null"], description: 'Default: "x".' },
        limit: { type: ["number", "null"], description: "Default: 10." },
      },
      additionalProperties: false,
      required: ["tag", "limit"],
    });
  });
});

/** A literal and the TypeScript type of its member. */
const literal: fc.Arbitrary<{ value: JsonValue; type: string }> = fc.oneof(
  fc.string({ maxLength: 8 }).map((value) => ({ value, type: "string" })),
  fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0))).map((value) => ({ value, type: "number" })),
  fc.boolean().map((value) => ({ value, type: "boolean" })),
  fc.constant({ value: null, type: "null" }),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.boolean(), fc.constant(null)), { maxLength: 3 }).map((value) => ({ value, type: "unknown[]" })),
  fc.dictionary(fc.stringMatching(/^[a-z]{1,4}$/), fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), { maxKeys: 3 }).map((value) => ({ value, type: "Record<string, unknown>" })),
);

/** One level of a nested pattern: the member's name, how the pattern spells it, and whether it defaults to `{}`. */
const level = fc.record({ name: fc.stringMatching(/^k[a-z]{0,3}$/), quoted: fc.boolean(), empty: fc.boolean() });

const nesting = fc.record({ levels: fc.array(level, { minLength: 1, maxLength: 4 }), leaf: literal, optional: fc.boolean() });

type Nesting = { levels: { name: string; quoted: boolean; empty: boolean }[]; leaf: { value: JsonValue; type: string }; optional: boolean };

/**
 * `f<i>({ top: { ka: { "kb": leaf = <literal> } = {} } })` and its type, with the `default`s it should
 * give, by path. Below a `= {}` every member is optional and every object pattern has a `= {}` too, or
 * the source would not compile.
 */
function toolSource(index: number, { levels, leaf, optional }: Nesting): { source: string; expected: Map<string, JsonValue> } {
  const expected = new Map<string, JsonValue>();
  const path = ["top", ...levels.map((entry) => entry.name)];
  // `empty[d]`: the object at path[d] defaults to `{}`.
  const empty = [false];
  levels.slice(0, -1).forEach((entry, at) => empty.push(entry.empty || empty[at]!));
  const inEmpty = (depth: number) => depth > 0 && empty[depth - 1] === true;
  const last = path.length - 1;
  let pattern = `${JSON.stringify(path[last])}: leaf = ${literalText(leaf.value)}`;
  let type = `${JSON.stringify(path[last])}${optional || inEmpty(last) ? "?" : ""}: ${leaf.type}`;
  expected.set(path.join("."), leaf.value);
  for (let depth = last - 1; depth >= 0; depth--) {
    const name = path[depth]!;
    const key = depth === 0 || levels[depth - 1]!.quoted ? JSON.stringify(name) : name;
    pattern = `${key}: { ${pattern} }${empty[depth] ? " = {}" : ""}`;
    type = `${JSON.stringify(name)}${empty[depth] || inEmpty(depth) ? "?" : ""}: { ${type} }`;
    if (empty[depth]) expected.set(path.slice(0, depth + 1).join("."), {});
  }
  const source = `/** F. @param top T. */\nexport function f${index}({ ${pattern} }: { ${type} }): unknown { return leaf; }\n`;
  return { source, expected };
}

/** How TypeScript writes a JSON value as a literal expression. */
function literalText(value: JsonValue): string {
  return JSON.stringify(value);
}

/** Every `default` in a schema, by the member path that reaches it. */
function defaultsIn(schema: JsonSchema, path: string, into = new Map<string, JsonValue>()): Map<string, JsonValue> {
  if ("default" in schema) into.set(path, schema.default!);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, member] of Object.entries(properties)) defaultsIn(member, `${path}.${name}`, into);
  return into;
}

/** Members listed in `required` that have a default: there must be none. */
function requiredWithDefault(schema: JsonSchema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const own = ((schema.required ?? []) as string[]).filter((name) => properties[name] !== undefined && "default" in properties[name]);
  return [...own, ...Object.values(properties).flatMap(requiredWithDefault)];
}

describe("a default at a random depth of a nested pattern", () => {
  it("appears at exactly the member's path, with exactly the literal's JSON value, and leaves required", () => {
    fc.assert(
      fc.property(fc.array(nesting, { minLength: 1, maxLength: 6 }), (cases) => {
        const tools = cases.map((entry, index) => toolSource(index, entry));
        const file = generated(tools.map((tool) => tool.source).join("\n"));
        tools.forEach(({ expected }, index) => {
          const top = propertyOf(file, `f${index}`, "top");
          expect(defaultsIn(top, "top")).toEqual(expected);
          expect(requiredWithDefault(top)).toEqual([]);
        });
      }),
      { numRuns: 30, seed: 20_261_203 },
    );
  }, 120_000);
});
