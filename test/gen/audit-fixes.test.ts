import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runGen } from "../../src/gen/run-gen.js";
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

describe("re-exports", () => {
  const g = "/** Tool g. @param word A word. */\nexport function g(word: string): string {\n  return word;\n}\n";

  it("a re-export of another tool file's function is not a second tool", () => {
    for (const barrel of ['export * from "./a";\n', 'export { g } from "./a";\n', 'export { g as h } from "./a.js";\n']) {
      const root = writeTree({ "tools/a.ts": "\n\n" + g, "tools/b.ts": barrel });
      const generation = generate(path.join(root, "tools"));
      expect(messages(generation.diagnostics, root)).toEqual([]);
      expect(generation.file!.bindings).toEqual([{ name: "g", file: "../tools/a.ts", exportName: "g", call: { kind: "positional", params: ["word"] } }]);
    }
  });

  it("a re-export from a file outside the tools folder is ignored, with a warning", () => {
    const root = writeTree({ "lib/x.ts": g, "tools/index.ts": '/** Local. */\nexport function local(): void {}\nexport { g } from "../lib/x";\n' });
    const generation = generate(path.join(root, "tools"));
    expect(messages(generation.diagnostics, root)).toEqual([
      'tools/index.ts:3:1 warning: "g" is re-exported from ../lib/x.ts, which is not a tool file, so it is not a tool; a tool is a function exported by the tool file that declares it: move it here or wrap it in a function declared here',
    ]);
    expect(generation.file!.tools.map((tool) => tool.function.name)).toEqual(["local"]);
  });
});

describe("overloads", () => {
  it("an overloaded function is an error at its first signature", () => {
    const { generation, messages: shown } = generateTool([
      "/** Overloaded. */",
      "export function over(x: string): string;",
      "export function over(x: number): number;",
      "export function over(x: any): any {",
      "  return x;",
      "}",
      "",
    ].join("\n"));
    expect(shown).toEqual([
      'tools/t.ts:2:1 error: tool "over" is overloaded, and one tool has one parameters schema; give it a single signature (a union parameter type covers several call forms)',
    ]);
    expect(generation.file).toBeUndefined();
  });
});

describe("--out that cannot be written", () => {
  const tool = "/** Tool. */\nexport function t(): void {}\n";
  function run(argv: string[], cwd: string) {
    const out: string[] = [];
    const err: string[] = [];
    const code = runGen(argv, { cwd, stdout: (text) => out.push(text), stderr: (text) => err.push(text) });
    return { code, stdout: out.join(""), stderr: err.join("") };
  }

  it("a directory is a usage error, and nothing is written", () => {
    const root = writeTree({ "tools/t.ts": tool, "out/keep.txt": "" });
    expect(run(["--out", "out"], root)).toEqual({
      code: 1, stdout: "", stderr: "error: --out out is a directory; give a file path such as out/schemas.json\ngen: 1 error; nothing written\n",
    });
    expect(readdirSync(path.join(root, "out"))).toEqual(["keep.txt"]);
  });

  it("a path through a file is a clear error; a missing parent folder is created", () => {
    const root = writeTree({ "tools/t.ts": tool, "afile": "" });
    expect(run(["--out", "afile/schemas.json"], root)).toEqual({
      code: 1, stdout: "", stderr: "error: cannot write afile/schemas.json: a part of its path is a file, not a folder\ngen: 1 error; nothing written\n",
    });
    expect(run(["--out", "new/deeper/schemas.json"], root)).toEqual({ code: 0, stdout: "gen: 1 tool → new/deeper/schemas.json\n", stderr: "" });
  });
});
