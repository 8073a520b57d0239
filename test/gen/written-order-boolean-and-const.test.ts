/**
 * Enum values in the order the code writes them for the forms the compiler orders its own way:
 * `boolean` beside literals (it stands for `false, true` where it is written), and the values of an
 * `as const` array or object named by `(typeof KINDS)[number]` / `(typeof O)[keyof typeof O]`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonSchema, SchemasFile } from "../../src/shared/schemas-file.js";
import { compileStrict, generateTool, parametersOf } from "./support.js";

function generated(source: string, extra: Record<string, string> = {}): SchemasFile {
  const { generation, messages } = generateTool(source, extra);
  expect(messages.filter((line) => line.includes(" error: "))).toEqual([]);
  const file = generation.file!;
  for (const tool of file.tools) expect(compileStrict(tool.function.parameters).logged).toEqual([]);
  return file;
}

function properties(file: SchemasFile, tool: string): Record<string, JsonSchema> {
  return parametersOf(file, tool).properties as Record<string, JsonSchema>;
}

describe("enum values of boolean beside literals, and of as-const constants, in written order", () => {
  const file = generated([
    'import { SHARED } from "./kinds.js";',
    'const KINDS = ["b", "a", "c"] as const;',
    "type Kind = typeof KINDS[number];",
    'const O = { z: "zz", y: "yy", x: "xx" } as const;',
    'const TYPED: readonly ["n", "m"] = ["n", "m"];',
    "const NUMS = [3, -1, 2] as const satisfies readonly number[];",
    'type Mode = boolean | "auto";',
    "",
    "/** Modes. @param a A. @param b B. @param c C. */",
    'export function modes(a: Mode, b: "auto" | boolean, c: "on" | boolean | "off"): string { return `${a}${b}${c}`; }',
    "",
    "/** Consts. @param c C. @param d D. @param e E. @param f F. @param g G. @param h H. @param i I. */",
    "export function consts(c: (typeof KINDS)[number], d: Kind, e: (typeof O)[keyof typeof O], f: typeof KINDS[number] | null, g: (typeof TYPED)[number], h: (typeof NUMS)[number], i: (typeof SHARED)[number]): string { return `${c}${d}${e}${f}${g}${h}${i}`; }",
    "",
    "/** Nested. @param o O. */",
    "export function nested(o: { kinds: Kind[]; mode?: Mode }): string { return `${o.kinds}${o.mode}`; }",
    "",
  ].join("\n"), { "tools/kinds.ts": 'export const SHARED = ["y", "x", "z"] as const;\n' });

  it("reads boolean as false, true where it is written", () => {
    expect(properties(file, "modes")).toEqual({
      a: { description: "A.", enum: [false, true, "auto"] },
      b: { description: "B.", enum: ["auto", false, true] },
      c: { description: "C.", enum: ["on", false, true, "off"] },
    });
  });

  it("reads an as-const array's or object's values in its order: directly, through an alias, a declared tuple, an import", () => {
    expect(properties(file, "consts")).toEqual({
      c: { type: "string", description: "C.", enum: ["b", "a", "c"] },
      d: { type: "string", description: "D.", enum: ["b", "a", "c"] },
      e: { type: "string", description: "E.", enum: ["zz", "yy", "xx"] },
      f: { description: "F.", anyOf: [{ type: "string", enum: ["b", "a", "c"] }, { type: "null" }] },
      g: { type: "string", description: "G.", enum: ["n", "m"] },
      h: { type: "number", description: "H.", enum: [3, -1, 2] },
      i: { type: "string", description: "I.", enum: ["y", "x", "z"] },
    });
  });

  it("keeps that order in members, array items, strictTools", () => {
    expect(properties(file, "nested").o).toEqual({
      type: "object",
      description: "O.",
      properties: {
        kinds: { type: "array", items: { type: "string", enum: ["b", "a", "c"] } },
        mode: { enum: [false, true, "auto"] },
      },
      additionalProperties: false,
      required: ["kinds"],
    });
    const strict = file.strictTools!.find((tool) => tool.function.name === "consts")!.function.parameters;
    expect((strict.properties as Record<string, JsonSchema>).c).toEqual({ type: "string", description: "C.", enum: ["b", "a", "c"] });
  });
});

describe("a random as-const array of distinct strings", () => {
  it("gives its enum in the array's order", () => {
    const values = fc.uniqueArray(fc.string({ maxLength: 6 }), { minLength: 2, maxLength: 8 });
    const form = fc.constantFrom("(typeof K)[number]", "typeof K[number]", "alias");
    fc.assert(
      fc.property(fc.array(fc.tuple(values, form), { minLength: 1, maxLength: 6 }), (cases) => {
        const source = cases.map(([list, written], index) => {
          const type = written === "alias" ? `A${index}` : written.replace("K", `K${index}`);
          return [
            `const K${index} = ${JSON.stringify(list)} as const;`,
            `type A${index} = typeof K${index}[number];`,
            `/** F. @param v V. */`,
            `export function f${index}(v: ${type}): string { return v; }`,
          ].join("\n");
        }).join("\n");
        const file = generated(source + "\n");
        cases.forEach(([list], index) => expect(properties(file, `f${index}`).v!.enum).toEqual(list));
      }),
      { numRuns: 30, seed: 20_261_203 },
    );
  }, 120_000);
});
