/**
 * gen asks Ajv about a default only where the default can break its schema: a literal initializer the
 * compiler checked against a type of primitives, literals and arrays whose schema says no more is left
 * alone, and Ajv (about 50 ms to load) is then never loaded; a type assertion in the initializer, a tag
 * keyword or an object type (structural for the compiler, closed for the schema) is checked. Defaults of
 * a destructured parameter are read by property name, quoted and numeric keys included.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generate, messages, parametersOf, repoRoot, writeTree } from "./support.js";

const launcher = path.join(repoRoot, "scripts", "run-from-sources.mjs");

/** Runs `npm run gen`'s command on `tools` as a process; says whether Ajv was loaded, and what it printed. */
function genAsProcess(root: string): { code: number | null; stderr: string; ajvLoaded: boolean } {
  const preload = path.join(root, "report-ajv.cjs");
  writeFileSync(preload, 'process.on("exit", () => process.stderr.write(`ajv loaded: ${Object.keys(require.cache).some((key) => /[\\\\/]node_modules[\\\\/]ajv[\\\\/]/.test(key))}\\n`));\n');
  const result = spawnSync(process.execPath, [launcher, "scripts/gen.ts", "--tools", path.join(root, "tools"), "--out", path.join(root, "schemas.json")], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: `--require ${preload}` },
  });
  const loaded = /ajv loaded: (true|false)/.exec(result.stderr)?.[1];
  if (loaded === undefined) throw new Error(`no report from the preload: ${result.stderr}`);
  return { code: result.status, stderr: result.stderr, ajvLoaded: loaded === "true" };
}

const typeOnly = [
  "/**",
  " * Searches.",
  " * @param mode How.",
  " * @param tags Tags.",
  " * @param limit How many.",
  " * @param either A text or a number.",
  " */",
  'export function search(mode: "fast" | "thorough" = "fast", tags: string[] = [], limit: number | null = 10, either: string | number = "x"): string { return mode + tags + limit + either; }',
  "",
].join("\n");

describe("checking defaults against their own schemas", () => {
  it("never loads Ajv for literal initializers whose schemas say only what their types say, and does once a tag constrains one", () => {
    const plain = genAsProcess(writeTree({ "tools/search.ts": typeOnly }));
    expect(plain).toMatchObject({ code: 0, ajvLoaded: false });
    expect(plain.stderr).not.toContain("does not satisfy");

    const tagged = genAsProcess(writeTree({ "tools/search.ts": typeOnly.replace(" * @param tags Tags.", " * @param tags Tags. @minItems 1") }));
    expect(tagged).toMatchObject({ code: 0, ajvLoaded: true });
    expect(tagged.stderr).toContain('warning: the default [] of parameter "tags" of tool "search" does not satisfy its own schema: must NOT have fewer than 1 items');
  });

  it("checks an initializer with a type assertion, which the compiler did not check against the type", () => {
    const root = writeTree({
      "tools/t.ts": [
        "interface Opts { a: number; b?: string }",
        "/**",
        " * Casts.",
        " * @param o The options.",
        " * @param n A count.",
        " */",
        "export function cast(o: Opts = {} as Opts, n: number = 1!): number { return o.a + n; }",
        "",
      ].join("\n"),
    });
    expect(messages(generate(path.join(root, "tools")).diagnostics, root)).toEqual([
      `tools/t.ts:7:32 warning: the default {} of parameter "o" of tool "cast" does not satisfy its own schema: must have required property 'a'`,
    ]);
  });

  it("reads the defaults of a destructured parameter by property name: quoted and numeric keys get theirs and are not required", () => {
    const root = writeTree({
      "tools/t.ts": [
        "/**",
        " * Keys.",
        " */",
        'export function keys({ "a-b": x = 1, 1.50: y = 2 }: { /** A dashed name. */ "a-b": number; /** A number as a name. */ 1.5: number }): number { return x + y; }',
        "",
      ].join("\n"),
    });
    const generation = generate(path.join(root, "tools"));
    expect(parametersOf(generation.file!, "keys")).toEqual({
      type: "object",
      properties: {
        "a-b": { type: "number", description: "A dashed name.", default: 1 },
        "1.5": { type: "number", description: "A number as a name.", default: 2 },
      },
      additionalProperties: false,
      required: [],
    });
  });
});
