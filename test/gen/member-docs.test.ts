/**
 * Member docs and tags wherever the doc comment sits on its line, and `@param` paths below a parameter:
 * descriptions and tags at any depth, or a warning at the tag for a path that names nothing.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SchemasFile } from "../../src/shared/schemas-file.js";
import { ToolGenerator } from "../../src/gen/tool-generator.js";
import { compileStrict, generate, messages, parametersOf, writeTree } from "./support.js";

/** Generates one tool file `tools/t.ts`; messages are relative to its folder, "has no description" ones left out. */
function generateTool(lines: string[]) {
  const root = writeTree({ "tools/t.ts": lines.join("\n") + "\n" });
  const generation = generate(path.join(root, "tools"));
  const shown = messages(generation.diagnostics, root).filter((m) => !m.includes("has no description"));
  return { file: generation.file, messages: shown };
}

function propertiesOf(file: SchemasFile | undefined, name: string): unknown {
  expect(file).toBeDefined();
  for (const tool of file!.tools) expect(compileStrict(tool.function.parameters).logged).toEqual([]);
  return parametersOf(file!, name).properties;
}

const obj = (properties: object, required: string[], extra: object = {}) => ({ type: "object", ...extra, properties, additionalProperties: false, required });

describe("a member's doc comment on the same line as other code", () => {
  const sameLine = [
    "interface Single { /** single-line doc */ s: string }",
    "/** Single. @param o O. */",
    "export function single(o: Single): string { return \"\" }",
    "/** Search. */",
    "export function search({ query, limit = 10 }: { /** The query. */ query: string; /** Max results. @minimum 1 @maximum 50 */ limit?: number }): string { return \"\" }",
    "/** Inline. @param o O. */",
    "export function inline(o: { /** The name. @minLength 1 */ name: string }): string { return \"\" }",
    "/** Two lines. @param o O. */",
    "export function twol(o: { /** The name. */",
    "  name: string }): string { return \"\" }",
  ];
  const ownLines = [
    "interface Single {",
    "  /** single-line doc */",
    "  s: string",
    "}",
    "/** Single. @param o O. */",
    "export function single(o: Single): string { return \"\" }",
    "/** Search. */",
    "export function search({ query, limit = 10 }: {",
    "  /** The query. */",
    "  query: string;",
    "  /** Max results. @minimum 1 @maximum 50 */",
    "  limit?: number",
    "}): string { return \"\" }",
    "/** Inline. @param o O. */",
    "export function inline(o: {",
    "  /** The name. @minLength 1 */",
    "  name: string",
    "}): string { return \"\" }",
    "/** Two lines. @param o O. */",
    "export function twol(o: {",
    "  /** The name. */",
    "  name: string",
    "}): string { return \"\" }",
  ];

  it("gives the descriptions and tags, exactly", () => {
    const { file, messages: shown } = generateTool(sameLine);
    expect(shown).toEqual([]);
    expect(propertiesOf(file, "single")).toEqual({ o: obj({ s: { type: "string", description: "single-line doc" } }, ["s"], { description: "O." }) });
    expect(propertiesOf(file, "search")).toEqual({
      query: { type: "string", description: "The query." },
      limit: { type: "number", description: "Max results.", minimum: 1, maximum: 50, default: 10 },
    });
    expect(propertiesOf(file, "inline")).toEqual({ o: obj({ name: { type: "string", description: "The name.", minLength: 1 } }, ["name"], { description: "O." }) });
    expect(propertiesOf(file, "twol")).toEqual({ o: obj({ name: { type: "string", description: "The name." } }, ["name"], { description: "O." }) });
  });

  it("reads exactly as the same comments on their own lines, strict entries included", () => {
    const a = generateTool(sameLine);
    const b = generateTool(ownLines);
    expect(a.file!.tools).toEqual(b.file!.tools);
    expect(a.file!.strictTools).toEqual(b.file!.strictTools);
  });

  it("after another member on the line, and on a tool after code on its line; of two, the last counts, as on their own lines", () => {
    const { file, messages: shown } = generateTool([
      "interface Pair { a: string; /** The b. @minLength 2 */ b: string; /** The c. */ /** @maximum 3 */ c: number }",
      "/** Helper. */ function helper(): void {} /** Pairs. @param p P. */ export function pairs(p: Pair): void { helper() }",
    ]);
    expect(shown).toEqual([]);
    expect(file!.tools.find((tool) => tool.function.name === "pairs")!.function.description).toBe("Pairs.");
    expect(propertiesOf(file, "pairs")).toEqual({
      p: obj({ a: { type: "string" }, b: { type: "string", description: "The b.", minLength: 2 }, c: { type: "number", maximum: 3 } }, ["a", "b", "c"], { description: "P." }),
    });
    const ownLines = generateTool([
      "interface Pair {",
      "  a: string;",
      "  /** The b. @minLength 2 */",
      "  b: string;",
      "  /** The c. */",
      "  /** @maximum 3 */",
      "  c: number",
      "}",
      "/** Helper. */",
      "function helper(): void {}",
      "/** Pairs. @param p P. */",
      "export function pairs(p: Pair): void { helper() }",
    ]);
    expect(file!.tools).toEqual(ownLines.file!.tools);
  });

  it("keeps them after a watch-mode edit of the file", () => {
    const root = writeTree({ "tools/t.ts": sameLine.join("\n") + "\n" });
    const tools = path.join(root, "tools");
    const generator = ToolGenerator.open(tools, path.join(root, "generated", "schemas.json"));
    if ("severity" in generator) throw new Error(generator.message);
    const cold = generator.generateAll();
    writeFileSync(path.join(tools, "t.ts"), sameLine.join("\n") + "\n// edited\n");
    const warm = generator.update([path.join(tools, "t.ts")]);
    expect(warm.file!.tools).toEqual(cold.file!.tools);
    expect(parametersOf(warm.file!, "search").properties.limit).toEqual({ type: "number", description: "Max results.", minimum: 1, maximum: 50, default: 10 });
  });
});

describe("@param paths below a parameter", () => {
  it("tags after @param o.name are o.name's, and @param o.inner.x describes the deeper member", () => {
    const { file, messages: shown } = generateTool([
      "interface Inner { x: number }",
      "interface Outer { inner: Inner; name: string }",
      "/**",
      " * T.",
      " * @param o the outer",
      " * @param o.name the name",
      " * @minLength 2",
      " * @param o.inner.x deep x",
      " */",
      "export function nestedtags(o: Outer): string { return \"\" }",
    ]);
    expect(shown).toEqual([]);
    expect(propertiesOf(file, "nestedtags")).toEqual({
      o: obj({
        inner: obj({ x: { type: "number", description: "deep x" } }, ["x"]),
        name: { type: "string", description: "the name", minLength: 2 },
      }, ["inner", "name"], { description: "the outer" }),
    });
  });

  it("through arrays (items[]), unions with null, and in a destructured tool with or without the object's name", () => {
    const { file, messages: shown } = generateTool([
      "interface Item { label: string; count: number }",
      "interface Inner { x: number }",
      "/**",
      " * Deep.",
      " * @param o The o.",
      " * @param o.items[].label The label.",
      " * @minLength 1",
      " * @param o.maybe.x Maybe x.",
      " * @minimum 0",
      " */",
      "export function deep(o: { items: Item[]; maybe: Inner | null }): void {}",
      "/**",
      " * Destructured.",
      " * @param opts The options.",
      " * @param opts.inner.x Inner x.",
      " * @maximum 5",
      " * @param other.x Other x.",
      " */",
      "export function destructured({ inner, other }: { inner: Inner; other: Inner }): void {}",
    ]);
    expect(shown).toEqual([]);
    expect(propertiesOf(file, "deep")).toEqual({
      o: obj({
        items: { type: "array", items: obj({ label: { type: "string", description: "The label.", minLength: 1 }, count: { type: "number" } }, ["count", "label"]) },
        maybe: { anyOf: [obj({ x: { type: "number", description: "Maybe x.", minimum: 0 } }, ["x"]), { type: "null" }] },
      }, ["items", "maybe"], { description: "The o." }),
    });
    expect(propertiesOf(file, "destructured")).toEqual({
      inner: obj({ x: { type: "number", description: "Inner x.", maximum: 5 } }, ["x"]),
      other: obj({ x: { type: "number", description: "Other x." } }, ["x"]),
    });
  });

  it("a @param that names nothing is a warning at the tag, with the compiler's spelling suggestion (none for names under 3 characters)", () => {
    const { file, messages: shown } = generateTool([
      "interface Item { label: string; count: number }",
      "interface Tree { value: number; left?: Tree }",
      "/**",
      " * Search.",
      " * @param qurey The query.",
      " */",
      "export function search({ query }: { query: string }): string { return query }",
      "/**",
      " * Deep.",
      " * @param o The o.",
      " * @param o.items[].cout The count.",
      " * @param o.tree.value The value.",
      " * @param o.name.x Nothing.",
      " * @param oo.name Nothing either.",
      " */",
      "export function deep(o: { items: Item[]; tree: Tree; name: string }): void {}",
      "/**",
      " * Destructured.",
      " * @param opts.qurey Typo.",
      " * @param opts.query.deep Nothing.",
      " */",
      "export function destructured({ query }: { query: string }): void {}",
    ]);
    expect(shown).toEqual([
      'tools/t.ts:5:4 warning: @param qurey of tool "search" names no parameter or member; did you mean query?',
      'tools/t.ts:11:4 warning: @param o.items[].cout of tool "deep" names no parameter or member; did you mean o.items[].count?',
      'tools/t.ts:12:4 warning: @param o.tree.value of tool "deep" reaches into the recursive type Tree (at o.tree), whose members one @param cannot describe for this use alone; put a doc comment on the member where Tree declares it',
      'tools/t.ts:13:4 warning: @param o.name.x of tool "deep" names no parameter or member',
      'tools/t.ts:14:4 warning: @param oo.name of tool "deep" names no parameter or member',
      'tools/t.ts:19:4 warning: @param opts.qurey of tool "destructured" names no parameter or member; did you mean opts.query?',
      'tools/t.ts:20:4 warning: @param opts.query.deep of tool "destructured" names no parameter or member',
    ]);
    expect(propertiesOf(file, "search")).toEqual({ query: { type: "string" } });
  });

  it("a tag after a nested @param that does not fit the member is an error at that @param", () => {
    const { file, messages: shown } = generateTool([
      "interface Inner { x: number }",
      "interface Outer { inner: Inner; name: string }",
      "/**",
      " * T.",
      " * @param o O.",
      " * @param o.name N.",
      " * @minimum 2",
      " * @param o.inner.x X.",
      " * @minLength abc",
      " */",
      "export function f(o: Outer): void {}",
    ]);
    expect(file).toBeUndefined();
    expect(shown).toEqual([
      'tools/t.ts:6:4 error: @minimum applies to numbers, but member "o.name" of tool "f" is a string',
      'tools/t.ts:8:4 error: member "o.inner.x" of tool "f": @minLength needs a whole number of 0 or more, got "abc"',
    ]);
  });
});
