import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runGen } from "../../src/gen/run-gen.js";
import type { WatchHandle } from "../../src/gen/watch-tools.js";
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
    expect(shown).toEqual([
      'tools/t.ts:2:22 warning: tool "open" is offered with strict: false in strict mode: parameter "f" is an open object (a Record or an index signature), whose keys strict mode needs named in advance; the model\'s arguments are still validated',
    ]);
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

describe("--watch with warnings", () => {
  // Two tools without descriptions: two warnings on every generation.
  const quiet = "export function w(x: string): void {}\n";
  const lines: string[] = [];
  let root = "";
  let handle: WatchHandle | undefined;
  afterAll(() => handle?.close());

  /** Waits (generously: the machine is shared) until `count` stderr lines have arrived, then for any straggler. */
  async function linesReach(count: number): Promise<void> {
    for (let waited = 0; lines.length < count && waited < 20_000; waited += 25) await new Promise((resolve) => setTimeout(resolve, 25));
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  const edit = (text: string) => writeFileSync(path.join(root, "tools/w.ts"), text);
  const line = (what: string, rest: string) => expect.stringMatching(new RegExp(`^gen: ${what}: ${rest} \\(\\d+ ms\\)$`));
  const warnings = [
    'tools/w.ts:1:1 warning: tool "w" has no description; add a JSDoc summary above it (models call tools far better with one)',
    'tools/w.ts:1:19 warning: parameter "x" of tool "w" has no description; add "@param x …" to the tool\'s JSDoc',
  ];

  it("prints warnings in full once, then one line per regeneration, and errors with their file's warnings", async () => {
    root = writeTree({ "tools/w.ts": quiet });
    const result = runGen(["--tools", "tools", "--out", "out/schemas.json", "--watch"], { cwd: root, stdout: () => {}, stderr: (text) => lines.push(...text.trimEnd().split("\n")) });
    if (typeof result === "number") throw new Error(`watch exited with ${result}: ${lines.join("\n")}`);
    handle = result;
    expect(lines).toEqual([...warnings, line("watching tools", "1 tool, 2 warnings → out/schemas\\.json")]);

    edit(quiet + "// an edit\n");
    await linesReach(4);
    edit(quiet + "// another edit\n");
    await linesReach(5);
    expect(lines.slice(3)).toEqual([line("tools/w\\.ts", "1 tool, 2 warnings → out/schemas\\.json"), line("tools/w\\.ts", "1 tool, 2 warnings → out/schemas\\.json")]);

    edit(quiet + "const n: number = \"x\";\n");
    await linesReach(7);
    expect(lines.slice(5)).toEqual([
      "tools/w.ts:2:7 error: Type 'string' is not assignable to type 'number'. (TS2322)",
      line("tools/w\\.ts", "1 error; out/schemas\\.json left as it was"),
    ]);

    edit(quiet + "/** Joins. @param xs Words. */\nexport function r(...xs: string[]): void {}\n");
    await linesReach(11);
    expect(lines.slice(7)).toEqual([
      'tools/w.ts:3:19 error: parameter "xs" of tool "r" is a rest parameter, which a call by named arguments cannot fill; take an array instead: xs: string[]',
      ...warnings,
      line("tools/w\\.ts", "1 error; out/schemas\\.json left as it was"),
    ]);
  });
});

describe("template literal types", () => {
  it("${number} and ${string} match exactly what TypeScript accepts", () => {
    const { generation, messages: shown } = generateTool([
      "/** Ids. @param id An id. @param key A key. @param either Either. */",
      "export function ids(id: `id-${number}`, key: `k.${string}/v`, either: `a-${number}` | `b(${string})`): void {}",
      "",
    ].join("\n"));
    expect(shown).toEqual([]);
    const parameters = parametersOf(generation.file!, "ids");
    expect(parameters.properties.id).toEqual({ type: "string", description: "An id.", pattern: String.raw`^id--?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$` });
    expect(parameters.properties.key).toEqual({ type: "string", description: "A key.", pattern: String.raw`^k\.[\s\S]*\/v$` });
    const { validate, logged } = compileStrict(parameters);
    expect(logged).toEqual([]);
    const call = (id: string) => validate({ id, key: "k.x\ny/v", either: "a-1" });
    for (const good of ["id-1", "id--1", "id-1.5", "id-.5", "id-1e-7", "id-0"]) expect(call(good), good).toBe(true);
    for (const bad of ["id-", "id-x", "id-1.2.3", "xid-1", "id-1 "]) expect(call(bad), bad).toBe(false);
    expect(validate({ id: "id-1", key: "k.x/w", either: "a-1" })).toBe(false);
    expect(validate({ id: "id-1", key: "k./v", either: "b(z)" })).toBe(true);
    expect(validate({ id: "id-1", key: "k./v", either: "b-1" })).toBe(false);
  });

  it("a placeholder no pattern expresses exactly is an error", () => {
    const { messages: shown } = generateTool("/** Shout. @param word A word. */\nexport function shout(word: `x-${Uppercase<string>}`): void {}\n");
    expect(shown).toEqual([
      'tools/t.ts:2:1 error: typescript-json-schema could not describe the parameters of tool "shout": the template literal type `x-${Uppercase<string>}` has a placeholder ${Uppercase<string>} that no pattern expresses exactly; use ${string} or ${number} there',
    ]);
  });
});
