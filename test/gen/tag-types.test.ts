import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SchemasFile } from "../../src/shared/schemas-file.js";
import { compileStrict, generate, messages, parametersOf, writeTree } from "./support.js";

/** Generates one tool file `tools/t.ts`; messages are relative to its folder. */
function generateTool(lines: string[]) {
  const root = writeTree({ "tools/t.ts": lines.join("\n") + "\n" });
  const generation = generate(path.join(root, "tools"));
  return { file: generation.file, messages: messages(generation.diagnostics, root) };
}

/** The one property `name` of tool `f`, after asserting the file compiles in strict Ajv without a word logged. */
function propertyOf(file: SchemasFile | undefined, name: string): unknown {
  expect(file).toBeDefined();
  for (const tool of file!.tools) expect(compileStrict(tool.function.parameters).logged).toEqual([]);
  return parametersOf(file!, "f").properties[name];
}

describe("a typed tag goes where its JSON type is", () => {
  it("into the number branch of a nullable literal union", () => {
    const { file, messages: shown } = generateTool([
      "/** F. @param l L. @minimum 1 */",
      "export function f(l?: 1 | 2 | null): void {}",
    ]);
    expect(shown).toEqual([]);
    expect(propertyOf(file, "l")).toEqual({ description: "L.", anyOf: [{ type: "number", enum: [1, 2], minimum: 1 }, { type: "null" }] });
  });

  it("into the string branch of Date | null", () => {
    const { file, messages: shown } = generateTool([
      "/** F. @param d D. @minLength 3 */",
      "export function f(d: Date | null): void {}",
    ]);
    expect(shown).toEqual([]);
    expect(propertyOf(file, "d")).toEqual({ description: "D.", anyOf: [{ type: "string", format: "date-time", minLength: 3 }, { type: "null" }] });
  });

  it("into the number branch only of string | number", () => {
    const { file, messages: shown } = generateTool([
      "/** F. @param sn SN. @minimum 1 @minLength 2 */",
      "export function f(sn: string | number): void {}",
    ]);
    expect(shown).toEqual([]);
    expect(propertyOf(file, "sn")).toEqual({ description: "SN.", anyOf: [{ type: "string", minLength: 2 }, { type: "number", minimum: 1 }] });
  });

  it("beside a type list that includes its type (number | null), which strict Ajv accepts", () => {
    const { file, messages: shown } = generateTool([
      "/** F. @param n N. @minimum 1 @param s S. @pattern ^a */",
      "export function f(n: number | null, s: string | null): void {}",
    ]);
    expect(shown).toEqual([]);
    expect(propertyOf(file, "n")).toEqual({ type: ["null", "number"], description: "N.", minimum: 1 });
    expect(propertyOf(file, "s")).toEqual({ type: ["null", "string"], description: "S.", pattern: "^a" });
  });

  it("on a nested member, in its branch too", () => {
    const { file, messages: shown } = generateTool([
      "interface Opts {",
      "  /** M. @minimum 1 */",
      "  m?: string | number;",
      "}",
      "/** F. @param o O. */",
      "export function f(o: Opts): void {}",
    ]);
    expect(shown).toEqual([]);
    expect(propertyOf(file, "o")).toEqual({
      type: "object", description: "O.",
      properties: { m: { description: "M.", anyOf: [{ type: "string" }, { type: "number", minimum: 1 }] } },
      additionalProperties: false,
    });
  });
});

describe("tuples: @minItems/@maxItems narrow the allowed lengths", () => {
  it("keeps only the lengths the bounds allow", () => {
    const { file, messages: shown } = generateTool([
      "/** F. @param t T. @minItems 2 @param u U. @maxItems 1 */",
      "export function f(t: [string, number?], u: [string, number?] | null): void {}",
    ]);
    expect(shown).toEqual([]);
    expect(propertyOf(file, "t")).toEqual({ type: "array", description: "T.", items: [{ type: "string" }, { type: "number" }], minItems: 2, maxItems: 2 });
    expect(propertyOf(file, "u")).toEqual({ description: "U.", anyOf: [{ type: "array", items: [{ type: "string" }], minItems: 1, maxItems: 1 }, { type: "null" }] });
  });

  it("warns about a bound every length already meets, and rejects one that none meets", () => {
    const { messages: shown } = generateTool([
      "/** F. @param t T. @minItems 1 @param u U. @minItems 3 @param v V. @maxItems 0 */",
      "export function f(t: [string, number?], u: [string, number?], v: [string]): void {}",
    ]);
    expect(shown).toEqual([
      'tools/t.ts:2:41 error: @minItems 3 rules out every value of parameter "u" of tool "f", which is a tuple of 1 or 2 items',
      'tools/t.ts:2:63 error: @maxItems 0 rules out every value of parameter "v" of tool "f", which is a tuple of 1 item',
      'tools/t.ts:2:19 warning: @minItems 1 changes nothing: parameter "t" of tool "f" is a tuple of 1 or 2 items, which already meets it; remove the tag',
    ]);
  });
});

describe("a typed tag where its type is nowhere is an error", () => {
  it("names the tag, the parameter and the type found", () => {
    const { file, messages: shown } = generateTool([
      "/**",
      " * F.",
      " * @param n N. @minLength 1",
      " * @param s S. @uniqueItems",
      " * @param t T. @minimum 3",
      " * @param e E. @format email",
      " * @param b B. @maxLength 2",
      " * @param a A. @maximum 2",
      " * @param r R. @minimum 1",
      " * @param x X. @minItems 1",
      " */",
      "export function f(n: number, s: string, t: string, e: number, b: boolean | null, a: number[], r: Record<string, number>, x: 1 | \"a\"): void {}",
    ]);
    expect(file).toBeUndefined();
    expect(shown).toEqual([
      'tools/t.ts:12:19 error: @minLength applies to strings, but parameter "n" of tool "f" is a number',
      'tools/t.ts:12:30 error: @uniqueItems applies to arrays, but parameter "s" of tool "f" is a string',
      'tools/t.ts:12:41 error: @minimum applies to numbers, but parameter "t" of tool "f" is a string',
      'tools/t.ts:12:52 error: @format applies to strings, but parameter "e" of tool "f" is a number',
      'tools/t.ts:12:63 error: @maxLength applies to strings, but parameter "b" of tool "f" is a boolean or null',
      'tools/t.ts:12:82 error: @maximum applies to numbers, but parameter "a" of tool "f" is an array; a tag constrains the array itself, not its elements',
      'tools/t.ts:12:95 error: @minimum applies to numbers, but parameter "r" of tool "f" is a record (an object with any keys); a tag constrains the record itself, not its values',
      'tools/t.ts:12:122 error: @minItems applies to arrays, but parameter "x" of tool "f" is one of 1, "a"',
    ]);
  });

  it("on a member of a destructured parameter, at the member, and on unknown or a recursive type", () => {
    const { messages: shown } = generateTool([
      "interface Tree { kids: Tree[] }",
      "/** F. @param opts.size Size. @param opts.any Any. @minimum 0 @param opts.tree Tree. @minItems 1 */",
      "export function f({ size, any, tree }: {",
      "  /** @pattern ^a */",
      "  size: number;",
      "  any: unknown;",
      "  tree: Tree;",
      "}): void {}",
    ]);
    expect(shown.filter((m) => m.includes(" error: "))).toEqual([
      'tools/t.ts:5:3 error: @pattern applies to strings, but parameter "size" of tool "f" is a number',
      'tools/t.ts:6:3 error: @minimum applies to numbers, but parameter "any" of tool "f" is any JSON value',
      'tools/t.ts:7:3 error: @minItems applies to arrays, but parameter "tree" of tool "f" is a Tree',
    ]);
  });

  it("on a member of an object, named by its path", () => {
    const { messages: shown } = generateTool([
      "interface Opts {",
      "  /** N. @minLength 2 */",
      "  n: number;",
      "}",
      "/** F. @param o O. */",
      "export function f(o: Opts): void {}",
    ]);
    expect(shown).toEqual(['tools/t.ts:6:1 error: @minLength applies to strings, but member "o.n" of tool "f" is a number']);
  });
});

describe("every type × every typed tag", () => {
  const types: [string, string[]][] = [
    ["number", ["number"]], ["string", ["string"]], ["boolean", []], ["number | null", ["number"]], ["string | number", ["number", "string"]],
    ["1 | 2 | null", ["number"]], ["Date | null", ["string"]], ['"a" | "b"', ["string"]], ["string[]", ["array"]], ["number[] | null", ["array"]],
    ["[string, number?]", ["array"]], ["[string, number?] | string", ["array", "string"]], ["Record<string, number>", []], ["{ a: string }", []],
  ];
  const tags: [string, string][] = [
    ["@minimum 1", "number"], ["@exclusiveMaximum 9", "number"], ["@multipleOf 2", "number"], ["@minLength 1", "string"], ["@pattern ^a", "string"],
    ["@format email", "string"], ["@minItems 1", "array"], ["@maxItems 1", "array"], ["@uniqueItems", "array"],
  ];
  const cases = types.flatMap(([type, has], t) => tags.map(([tag, needs], g) => ({ name: `f${t}_${g}`, type, tag, fits: has.includes(needs) })));
  const source = (selected: typeof cases) => selected.flatMap(({ name, type, tag }) => [`/** T. @param x X. ${tag} */`, `export function ${name}(x: ${type}): void {}`]);

  it("is an error exactly where the tag's type is absent; everything else compiles in strict Ajv with nothing logged", () => {
    const all = generateTool(source(cases));
    const errored = new Set(all.messages.filter((m) => m.includes(" error: ")).map((m) => /of tool "(\w+)"/.exec(m)?.[1]));
    expect(cases.filter((c) => errored.has(c.name)).map((c) => c.name)).toEqual(cases.filter((c) => !c.fits).map((c) => c.name));

    const fitting = cases.filter((c) => c.fits);
    const { file, messages: shown } = generateTool(source(fitting));
    expect(shown.filter((m) => m.includes(" error: "))).toEqual([]);
    for (const { name } of fitting) expect([name, compileStrict(parametersOf(file!, name)).logged]).toEqual([name, []]);
  });
});
