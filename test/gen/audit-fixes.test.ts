import path from "node:path";
import { describe, expect, it } from "vitest";
import { compileStrict, generate, messages, parametersOf, writeTree } from "./support.js";

/** Generates one tool file and returns the diagnostics (relative to the folder) and the file. */
function generateTool(source: string, extra: Record<string, string> = {}) {
  const root = writeTree({ "tools/t.ts": source, ...extra });
  const generation = generate(path.join(root, "tools"));
  return { root, generation, messages: messages(generation.diagnostics, root) };
}

describe("intersections", () => {
  it("a branded or intersected primitive is the primitive's schema", () => {
    const { generation, messages: shown } = generateTool([
      "/** Brands. @param n A number. @param id An id. @param flag A flag. @param word A word. */",
      'export function brands(n: number & {}, id: string & { readonly __brand: "Id" }, flag: boolean & { __b: 1 }, word: "a" & { __b: 1 }): void {}',
      "",
    ].join("\n"));
    expect(shown).toEqual([]);
    const parameters = parametersOf(generation.file!, "brands");
    expect(parameters).toEqual({
      type: "object",
      properties: {
        n: { type: "number", description: "A number." },
        id: { type: "string", description: "An id." },
        flag: { type: "boolean", description: "A flag." },
        word: { type: "string", description: "A word.", const: "a" },
      },
      additionalProperties: false,
      required: ["n", "id", "flag", "word"],
    });
    const { validate, logged } = compileStrict(parameters);
    expect(logged).toEqual([]);
    expect(validate({ n: 1, id: "x", flag: true, word: "a" })).toBe(true);
  });

  it("an intersection with a string index signature stays open, with the index value type", () => {
    const { generation, messages: shown } = generateTool([
      "/** Open. @param f Fields. */",
      "export function open(f: { a: string } & Record<string, string>): void {}",
      "",
    ].join("\n"));
    expect(shown).toEqual([]);
    const parameters = parametersOf(generation.file!, "open");
    expect(parameters.properties.f).toEqual({
      type: "object", description: "Fields.", properties: { a: { type: "string" } }, additionalProperties: { type: "string" }, required: ["a"],
    });
    const { validate } = compileStrict(parameters);
    expect(validate({ f: { a: "x", b: "y" } })).toBe(true);
    expect(validate({ f: { a: "x", b: 1 } })).toBe(false);
    expect(validate({ f: { b: "y" } })).toBe(false);
  });
});
