import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runGen } from "../../src/gen/command/run-gen.js";
import type { WatchHandle } from "../../src/gen/command/watch-tools.js";
import { writeTree } from "./support.js";

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

  it("an unchanged file is not written again and keeps its timestamp; a change of the same size is written", () => {
    const root = writeTree({ "tools/t.ts": tool });
    const out = path.join(root, "generated", "schemas.json");
    expect(run([], root).code).toBe(0);
    const past = new Date(2020, 0, 1);
    utimesSync(out, past, past);
    expect(run([], root).code).toBe(0);
    expect(statSync(out).mtimeMs).toBe(past.getTime());
    const written = readFileSync(out, "utf8");
    writeFileSync(out, written.replace('"t"', '"u"'));
    expect(run([], root).code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(written);
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
