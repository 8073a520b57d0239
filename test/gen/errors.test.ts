import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runGen, type GenIo } from "../../src/gen/command/run-gen.js";
import { generate, messages, writeTree } from "./support.js";

/** One folder holding every kind of mistake: all of them are reported in one run. */
const files = {
  "tools/unsupported.ts": [
    "/** Takes things JSON cannot carry. */",
    "export function f(",
    "  /** A callback. */ cb: () => void,",
    "  /** A symbol. */ s: symbol,",
    "  /** A bigint. */ n: bigint,",
    "  /** A map. */ m: Map<string, number>,",
    "  /** A set. */ set: Set<string>,",
    "  /** An instance. */ c: Counter,",
    "  /** Never. */ nv: never,",
    "  /** Void. */ v: void,",
    "  /** Nested. */ o: { handler: (x: number) => string },",
    "): void {}",
    "",
    "class Counter {",
    "  count = 0;",
    "  increment(): void {",
    "    this.count++;",
    "  }",
    "}",
    "",
  ].join("\n"),
  "tools/rest.ts": "/** Joins words. @param xs The words. */\nexport function join(...xs: string[]): string {\n  return xs.join(\" \");\n}\n",
  "tools/several.ts": "/** Two problems. @param cb A callback. @param xs Words. */\nexport function several(cb: () => void, ...xs: string[]): void {}\n",
  "tools/typo.ts": "/** Broken. */\nexport function broken(): number {\n  const n: number = \"x\";\n  return n;\n}\n",
  "tools/names.ts": "/** Dollar. */\nexport const $dollar = (): void => {};\n/** Too long. */\nexport function " + "a".repeat(65) + "(): void {}\n",
  "tools/dup_a.ts": "/** One. */\nexport function same(): void {}\n",
  "tools/dup_b.ts": "\n/** Two. */\nexport function same(): void {}\n",
  "tools/default.ts": "/** Anonymous. */\nexport default function (): void {}\n",
  "tools/tags.ts": [
    "/**",
    " * Bad tags.",
    " * @param a A number.",
    " * @minimum abc",
    " * @param b A string.",
    " * @format nope",
    " * @param c Another string.",
    " * @pattern (",
    " */",
    "export function tags(a: number, b: string, c: string): void {}",
    "",
  ].join("\n"),
  "tools/undocumented.ts": "export function bare(x: string): string {\n  return x;\n}\n",
  "tools/destructured.ts": "/** Two params, one destructured. @param n A number. */\nexport function pair({ a }: { a: string }, n: number): void {}\n",
};

let root: string;
let found: string[];

beforeAll(() => {
  root = writeTree(files);
  const generation = generate(path.join(root, "tools"));
  expect(generation.file).toBeUndefined();
  found = messages(generation.diagnostics, root);
});

describe("errors, each at file:line:col", () => {
  it("a type with no JSON meaning, named with its type", () => {
    const cannot = (line: number, col: number, name: string, type: string, at = "") =>
      `tools/unsupported.ts:${line}:${col} error: parameter "${name}" of tool "f" has type "${type}"${at}, which JSON cannot carry`;
    expect(found).toEqual(expect.arrayContaining([
      cannot(3, 22, "cb", "() => void"),
      cannot(4, 20, "s", "symbol"),
      cannot(5, 20, "n", "bigint"),
      cannot(6, 17, "m", "Map<string, number>"),
      cannot(7, 17, "set", "Set<string>"),
      cannot(8, 23, "c", "Counter"),
      cannot(9, 17, "nv", "never"),
      cannot(10, 16, "v", "void"),
      cannot(11, 23, "o", "(x: number) => string", " at o.handler"),
    ]));
  });

  it("a rest parameter, suggesting an array", () => {
    expect(found).toContain('tools/rest.ts:2:22 error: parameter "xs" of tool "join" is a rest parameter, which a call by named arguments cannot fill; take an array instead: xs: string[]');
  });

  it("every problem of one tool at once, as a compiler would", () => {
    expect(found).toContain('tools/several.ts:2:25 error: parameter "cb" of tool "several" has type "() => void", which JSON cannot carry');
    expect(found).toContain('tools/several.ts:2:41 error: parameter "xs" of tool "several" is a rest parameter, which a call by named arguments cannot fill; take an array instead: xs: string[]');
  });

  it("the compiler's own diagnostics", () => {
    expect(found).toContain("tools/typo.ts:3:9 error: Type 'string' is not assignable to type 'number'. (TS2322)");
  });

  it("tool names providers reject", () => {
    expect(found).toContain('tools/names.ts:2:14 error: tool name "$dollar" is not accepted by model providers, which allow only letters, digits, _ and - (1 to 64 characters); rename the export');
    expect(found).toContain(`tools/names.ts:4:1 error: tool name "${"a".repeat(65)}" is not accepted by model providers, which allow only letters, digits, _ and - (1 to 64 characters); rename the export`);
  });

  it("duplicate names across files, naming both places", () => {
    expect(found).toContain('tools/dup_a.ts:2:1 error: tool name "same" is defined more than once, at tools/dup_a.ts:2:1 and tools/dup_b.ts:3:1; tool names must be unique across files');
  });

  it("export default, asking for a name", () => {
    expect(found).toContain("tools/default.ts:2:1 error: a default export has no name a model can call it by; export it by name instead (export function my_tool(…) or export const my_tool = (…) => …)");
  });

  it("validation tags whose value has the wrong type", () => {
    expect(found).toEqual(expect.arrayContaining([
      'tools/tags.ts:10:22 error: parameter "a" of tool "tags": @minimum needs a number, got "abc"',
      expect.stringMatching(/^tools\/tags\.ts:10:33 error: parameter "b" of tool "tags": @format "nope" is not a format Ajv knows; use one of date, time, date-time, /),
      'tools/tags.ts:10:44 error: parameter "c" of tool "tags": @pattern ( is not a valid regular expression',
    ]));
  });

  it("a destructured parameter beside others has no name", () => {
    expect(found).toContain('tools/destructured.ts:2:22 error: parameter 1 of tool "pair" is a destructuring pattern beside other parameters, so it has no name to become a property; name it, or make it the tool\'s only parameter');
  });
});

describe("warnings", () => {
  it("a tool or a parameter without a description", () => {
    expect(found).toContain('tools/undocumented.ts:1:1 warning: tool "bare" has no description; add a JSDoc summary above it (models call tools far better with one)');
    expect(found).toContain('tools/undocumented.ts:1:22 warning: parameter "x" of tool "bare" has no description; add "@param x …" to the tool\'s JSDoc');
  });

  it("come after the errors", () => {
    const firstWarning = found.findIndex((line) => line.includes(" warning: "));
    expect(found.slice(firstWarning).every((line) => line.includes(" warning: "))).toBe(true);
  });
});

describe("the CLI", () => {
  const run = (argv: string[], cwd: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const io: GenIo = { cwd, stdout: (text) => out.push(text), stderr: (text) => err.push(text) };
    const code = runGen(argv, io);
    return { code, stdout: out.join(""), stderr: err.join("") };
  };

  it("exits 1 on errors and writes nothing", () => {
    const result = run(["--tools", "tools", "--out", "out/schemas.json"], root);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('tools/rest.ts:2:22 error: parameter "xs" of tool "join" is a rest parameter');
    expect(result.stderr).toMatch(/gen: \d+ errors; nothing written\n$/);
    expect(existsSync(path.join(root, "out"))).toBe(false);
  });

  it("a file that does not parse reports its syntax errors alone, as tsc does, not the type errors that follow from them", () => {
    const broken = writeTree({ "tools/broken.ts": "/** Breaks. */\nexport function broken(a: string: string {\n  return a;\n}\n" });
    const expected = [
      "tools/broken.ts:2:33 error: ',' expected. (TS1005)",
      "tools/broken.ts:2:42 error: ',' expected. (TS1005)",
      "tools/broken.ts:3:10 error: ':' expected. (TS1005)",
      "tools/broken.ts:3:11 error: ',' expected. (TS1005)",
      "tools/broken.ts:5:1 error: ')' expected. (TS1005)",
    ];
    const cli = run(["--tools", "tools", "--out", "out/schemas.json"], broken);
    expect(cli).toEqual({ code: 1, stdout: "", stderr: `${expected.join("\n")}\ngen: ${expected.length} errors; nothing written\n` });
    expect(messages(generate(path.join(broken, "tools")).diagnostics, broken)).toEqual(expected);
  });

  it("a missing tools folder is a clear message naming a tool file in that very folder", () => {
    const result = run(["--tools", "nowhere"], root);
    expect(result).toEqual({ code: 1, stdout: "", stderr: "error: tools folder nowhere does not exist; create it with a tool file (nowhere/my_tool.ts) or pass --tools <dir>\ngen: 1 error; nothing written\n" });
    const nested = run(["--tools", "src/agent-tools"], root);
    expect(nested.stderr).toBe("error: tools folder src/agent-tools does not exist; create it with a tool file (src/agent-tools/my_tool.ts) or pass --tools <dir>\ngen: 1 error; nothing written\n");
  });

  it("a tool file linked in from elsewhere is refused by name, not skipped (the runtime imports only files in the folder)", () => {
    mkdirSync(path.join(root, "linked"), { recursive: true });
    mkdirSync(path.join(root, "elsewhere"), { recursive: true });
    writeFileSync(path.join(root, "elsewhere", "real.ts"), "/** Says hi. */\nexport function hello(): string {\n  return \"hi\";\n}\n");
    symlinkSync(path.join(root, "elsewhere", "real.ts"), path.join(root, "linked", "link.ts"));
    const result = run(["--tools", "linked"], root);
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: linked/link.ts is a symbolic link to ${realpathSync(path.join(root, "elsewhere", "real.ts"))}, which is not in the tools folder itself: the agent and sigloop mcp import only files there, so gen does not read it; copy the file in, or link the whole tools folder\ngen: 1 error; nothing written\n`,
    });
  });

  it("an empty tools folder is a clear message", () => {
    mkdirSync(path.join(root, "empty"), { recursive: true });
    const result = run(["--tools", "empty"], root);
    expect(result).toEqual({ code: 1, stdout: "", stderr: "error: tools folder empty has no .ts files; write a tool there (an exported, JSDoc-commented function)\ngen: 1 error; nothing written\n" });
  });

  it("--check and --watch together are refused", () => {
    const result = run(["--check", "--watch"], root);
    expect(result.code).toBe(1);
    expect(result.stderr.startsWith("error: --check and --watch cannot be combined\nusage: npm run gen")).toBe(true);
  });

  it("--tools=<dir> works like --tools <dir>", () => {
    mkdirSync(path.join(root, "empty"), { recursive: true });
    const result = run(["--tools=empty"], root);
    expect(result.stderr).toContain("error: tools folder empty has no .ts files");
  });

  it("an unknown flag shows the usage", () => {
    const result = run(["--frobnicate"], root);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: unknown argument "--frobnicate"\nusage: npm run gen -- [--tools <dir>] [--out <file>] [--check | --watch]');
  });
});
