import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runGen } from "../../src/gen/command/run-gen.js";
import type { JsonSchema } from "../../src/shared/schemas-file.js";
import { compileStrict, generate, messages, parametersOf, writeTree } from "./support.js";

const source = [
  "/**",
  " * Lists things.",
  " * @param limit Max results. @minimum 1",
  " * @param name A name. @maxLength 3",
  " * @param code A code. @pattern ^[a-z]+$",
  " * @param ids Some ids. @minItems 2",
  " * @param step A step. @multipleOf 5",
  " * @param unit A unit. @default \"mi\"",
  " * @param tagged Tagged. @minimum 5 @default 2",
  " * @param fine Within bounds. @minimum 1 @maximum 10",
  " * @param nullable Nullable. @minimum 1",
  " * @param notNull Not nullable. @default null",
  " * @param both Both tags, the initializer wins. @minimum 1 @default 0",
  " */",
  "export function list(limit = 0, name = \"toolong\", code = \"ABC\", ids: number[] = [1], step = 7, unit?: \"m\" | \"km\", tagged?: number,",
  "  fine = 3, nullable: number | null = null, notNull?: string, both = 4): void {}",
  "",
  "/**",
  " * Searches.",
  " * @param opts.size Page size. @minimum 10 @default 3",
  " */",
  "export function search({ limit = 200, mail = \"nope\" }: {",
  "  /** Max. @maximum 100 */ limit?: number;",
  "  /** Mail. @format email */ mail?: string;",
  "  opts?: { size?: number; /** Label. @maxLength 2 @default \"abc\" */ label?: string };",
  "}): void {}",
  "",
  "/** Either. @param either A text or a number. @minLength 3 */",
  "export function either(either: string | number = \"ab\"): void {}",
  "",
].join("\n");

describe("a default that breaks its own schema", () => {
  const root = writeTree({ "tools/t.ts": source });
  const generation = generate(path.join(root, "tools"));
  const shown = messages(generation.diagnostics, root);

  it("is a warning at the default, saying what Ajv says, for every kind of tag; defaults that fit (null on a nullable parameter) say nothing", () => {
    expect(shown).toEqual([
      'tools/t.ts:8:24 warning: the default "mi" of parameter "unit" of tool "list" does not satisfy its own schema: must be equal to one of the allowed values',
      'tools/t.ts:9:37 warning: the default 2 of parameter "tagged" of tool "list" does not satisfy its own schema: must be >= 5',
      'tools/t.ts:12:33 warning: the default null of parameter "notNull" of tool "list" does not satisfy its own schema: must be string',
      'tools/t.ts:15:30 warning: the default 0 of parameter "limit" of tool "list" does not satisfy its own schema: must be >= 1',
      'tools/t.ts:15:40 warning: the default "toolong" of parameter "name" of tool "list" does not satisfy its own schema: must NOT have more than 3 characters',
      'tools/t.ts:15:58 warning: the default "ABC" of parameter "code" of tool "list" does not satisfy its own schema: must match pattern "^[a-z]+$"',
      'tools/t.ts:15:81 warning: the default [1] of parameter "ids" of tool "list" does not satisfy its own schema: must NOT have fewer than 2 items',
      'tools/t.ts:15:93 warning: the default 7 of parameter "step" of tool "list" does not satisfy its own schema: must be multiple of 5',
      'tools/t.ts:20:44 warning: the default 3 of member "opts.size" of tool "search" does not satisfy its own schema: must be >= 10',
      'tools/t.ts:22:34 warning: the default 200 of parameter "limit" of tool "search" does not satisfy its own schema: must be <= 100',
      'tools/t.ts:22:46 warning: the default "nope" of parameter "mail" of tool "search" does not satisfy its own schema: must match format "email"',
      'tools/t.ts:25:3 warning: parameter "opts" of tool "search" has no description; add "@param opts …" to the tool\'s JSDoc',
      'tools/t.ts:25:3 warning: the default "abc" of member "opts.label" of tool "search" does not satisfy its own schema: must NOT have more than 2 characters',
      // Of a union, the branch of the default's own type says why; the others and `anyOf` itself say nothing more.
      'tools/t.ts:29:50 warning: the default "ab" of parameter "either" of tool "either" does not satisfy its own schema: must NOT have fewer than 3 characters',
    ]);
  });

  it("leaves the schemas as they were written", () => {
    const properties = parametersOf(generation.file!, "list").properties;
    expect(properties.limit).toEqual({ type: "number", description: "Max results.", minimum: 1, default: 0 });
    expect(properties.nullable).toEqual({ type: ["null", "number"], description: "Nullable.", minimum: 1, default: null });
    expect(properties.both).toEqual({ type: "number", description: "Both tags, the initializer wins.", minimum: 1, default: 4 });
  });

  it("leaves the exit code at 0", () => {
    const err: string[] = [];
    const code = runGen(["--tools", "tools", "--out", "out/schemas.json"], { cwd: root, stdout: () => {}, stderr: (text) => err.push(text) });
    expect(code).toBe(0);
    expect(err.join("")).toContain('tools/t.ts:15:30 warning: the default 0 of parameter "limit" of tool "list"');
  });
});

const bound = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(-0.5, 0.5, 1.5));
const numericTags = fc.record(
  {
    minimum: bound,
    maximum: bound,
    exclusiveMinimum: bound,
    exclusiveMaximum: bound,
    multipleOf: fc.constantFrom(0.5, 1, 2, 3),
  },
  { requiredKeys: [] },
);
const numericTool = fc.record({ tags: numericTags, value: fc.oneof(fc.integer({ min: -6, max: 6 }), fc.constantFrom(-1.5, 0.5, 2.5)) });

describe("numeric bounds against a default (property)", () => {
  it("warn exactly when Ajv says the default fails the emitted schema without it", () => {
    fc.assert(
      fc.property(fc.array(numericTool, { minLength: 1, maxLength: 12 }), (tools) => {
        const lines = tools.flatMap(({ tags, value }, index) => [
          `/** F. @param x X. ${Object.entries(tags).map(([tag, bound]) => `@${tag} ${bound}`).join(" ")} */`,
          `export function f${index}(x = ${value}): void {}`,
        ]);
        const root = writeTree({ "tools/t.ts": lines.join("\n") + "\n" });
        const generation = generate(path.join(root, "tools"));
        const shown = messages(generation.diagnostics, root);
        const expected = tools.flatMap(({ value }, index) => {
          const { default: written, ...schema } = parametersOf(generation.file!, `f${index}`).properties.x as JsonSchema;
          expect(written).toBe(value);
          if (compileStrict(schema).validate(value)) return [];
          const prefix = `export function f${index}(x = `;
          return [`tools/t.ts:${2 * index + 2}:${prefix.length + 1} warning: the default ${value} of parameter "x" of tool "f${index}" does not satisfy its own schema: `];
        });
        const warned = shown.filter((line) => line.includes(" warning: the default "));
        expect(warned.map((line) => line.slice(0, line.indexOf("schema: ") + "schema: ".length))).toEqual(expected);
      }),
      { numRuns: 30, seed: 20_261_203 },
    );
  });
});
