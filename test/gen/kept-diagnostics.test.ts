/**
 * A one-shot `gen` keeps the compiler's diagnostics of the tool files for the next run and checks
 * again only what changed (a file, what it imports, anything declaring globals): the schemas file and
 * every message stay exactly what a run that checks everything gives.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runGen, type GenIo } from "../../src/gen/command/run-gen.js";
import { checkLocalFiles, keptDiagnosticsOptions } from "../../src/gen/program/kept-diagnostics.js";
import { ToolHost } from "../../src/gen/program/tool-host.js";
import { toolCompilerOptions } from "../../src/gen/program/tool-project.js";
import { typingsCacheDir } from "../../src/gen/program/typings-cache.js";
import { fixturesDir, generate, messages, repoRoot, writeTree } from "./support.js";

const folders: string[] = [];
afterAll(() => {
  for (const tools of folders) {
    rmSync(keptFile(tools), { force: true });
    rmSync(typingsCacheDir(tools), { recursive: true, force: true });
  }
});

const keptFile = (tools: string) => keptDiagnosticsOptions(tools).tsBuildInfoFile!;

function toolsFolder(files: Record<string, string>): { root: string; tools: string; out: string } {
  const root = writeTree(Object.fromEntries(Object.entries(files).map(([name, text]) => [`tools/${name}`, text])));
  return registered(root);
}

function registered(root: string): { root: string; tools: string; out: string } {
  const tools = path.join(root, "tools");
  folders.push(tools);
  rmSync(keptFile(tools), { force: true });
  return { root, tools, out: path.join(root, "generated", "schemas.json") };
}

/** A one-shot gen from `root`, by default of its tools/ into generated/schemas.json. */
function gen(root: string, ...argv: string[]): { code: number; stderr: string } {
  const err: string[] = [];
  const io: GenIo = { cwd: root, stdout: () => {}, stderr: (text) => err.push(text) };
  const code = runGen(argv.some((arg) => arg.startsWith("--tools")) ? argv : ["--tools", "tools", "--out", "generated/schemas.json", ...argv], io);
  if (typeof code !== "number") throw new Error("not a one-shot run");
  return { code, stderr: err.join("") };
}

/** Checks the folder as a one-shot run does; returns the files checked again (relative) and every message. */
function check(tools: string, withNodeTypes = false): { rechecked: string[]; messages: string[] } {
  const host = new ToolHost();
  const files = ["a.ts", "b.ts", "types.ts", "globals.ts"].map((name) => path.join(tools, name)).filter((file) => existsSync(file));
  const program = host.createProgram(files, { ...toolCompilerOptions(withNodeTypes), ...keptDiagnosticsOptions(tools) });
  const checked = checkLocalFiles(program, files);
  checked.save();
  return {
    rechecked: checked.rechecked.map((file) => path.relative(tools, file)).sort(),
    messages: files.flatMap((file) => messages(checked.diagnostics(file), tools)),
  };
}

const shared = {
  "types.ts": 'export interface Paging {\n  page: number;\n  size?: number;\n}\n',
  "a.ts": 'import type { Paging } from "./types";\n/**\n * A.\n * @param paging Which page.\n */\nexport function a(paging: Paging): number {\n  return paging.page;\n}\n',
  "b.ts": 'import type { Paging } from "./types";\n/**\n * B.\n * @param paging Which page.\n */\nexport function b(paging: Paging): number {\n  return paging.size ?? 0;\n}\n',
};

describe("the diagnostics a one-shot gen keeps for the next run", () => {
  it("checks every file the first time, none when nothing changed, and gives the same messages back", () => {
    const { tools } = toolsFolder({ ...shared, "b.ts": shared["b.ts"].replace("paging.size ?? 0", "paging.size") });
    const error = "b.ts:7:3 error: Type 'number | undefined' is not assignable to type 'number'.\n  Type 'undefined' is not assignable to type 'number'. (TS2322)";
    expect(check(tools)).toEqual({ rechecked: ["a.ts", "b.ts", "types.ts"], messages: [error] });
    expect(check(tools)).toEqual({ rechecked: [], messages: [error] });
  });

  it("checks again an edited file, and the files importing a file whose declarations changed", () => {
    const { tools } = toolsFolder(shared);
    check(tools);
    writeFileSync(path.join(tools, "a.ts"), shared["a.ts"].replace("return paging.page;", "return paging.page + 1;"));
    expect(check(tools)).toEqual({ rechecked: ["a.ts"], messages: [] });
    // `size` is gone: b.ts, unchanged, no longer compiles.
    writeFileSync(path.join(tools, "types.ts"), "export interface Paging {\n  page: number;\n}\n");
    expect(check(tools)).toEqual({
      rechecked: ["a.ts", "b.ts", "types.ts"],
      messages: ["b.ts:7:17 error: Property 'size' does not exist on type 'Paging'. (TS2339)"],
    });
  });

  it("checks every file again when a file declaring globals changes, or the compiler options do", () => {
    const { tools } = toolsFolder({
      ...shared,
      "globals.ts": "declare global {\n  var pageLimit: number;\n}\nexport {};\n",
      "b.ts": shared["b.ts"].replace("paging.size ?? 0", "paging.size ?? pageLimit"),
    });
    expect(check(tools).messages).toEqual([]);
    writeFileSync(path.join(tools, "globals.ts"), "declare global {\n  var pageCap: number;\n}\nexport {};\n");
    expect(check(tools)).toEqual({
      rechecked: ["a.ts", "b.ts", "globals.ts", "types.ts"],
      messages: ["b.ts:7:25 error: Cannot find name 'pageLimit'. (TS2304)"],
    });
    expect(check(tools).rechecked).toEqual([]);
    expect(check(tools, true).rechecked).toEqual(["a.ts", "b.ts", "globals.ts", "types.ts"]);
  });

  it("gives a second run the bytes of a run that checks everything, over every schema fixture, this project's tools and Node-using tools", () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), "sigloop-kept-"));
    cpSync(path.join(fixturesDir, "types"), path.join(copy, "tools"), { recursive: true });
    // This project's tools import its sources: generated where they are, written elsewhere.
    const own = { root: repoRoot, tools: path.join(repoRoot, "tools"), out: path.join(mkdtempSync(path.join(os.tmpdir(), "sigloop-kept-")), "schemas.json") };
    folders.push(own.tools);
    rmSync(keptFile(own.tools), { force: true });
    const roots = [registered(copy), own];
    roots.push(toolsFolder({
      "notes.ts": [
        'import { readFile } from "node:fs/promises";',
        'import path from "node:path";',
        "",
        "/**",
        " * Read a note.",
        " * @param name The note's file name.",
        ' * @param mode "text" or "size".',
        " */",
        'export async function read_note(name: string, mode: "text" | "size" = "text"): Promise<string> {',
        '  const text = await readFile(path.join(process.env.NOTES ?? ".", name), "utf8");',
        '  return mode === "size" ? String(text.length) : text;',
        "}",
        "",
      ].join("\n"),
    }));
    for (const { root, tools, out } of roots) {
      const everything = generate(tools, out);
      // Warnings only (the fixtures have some), each as gen prints it.
      const printed = { code: 0, stderr: messages(everything.diagnostics, root).map((line) => `${line}\n`).join("") };
      expect(everything.text).toBeDefined();
      const args = ["--tools", tools, "--out", out];
      expect(gen(root, ...args)).toEqual(printed);
      expect(existsSync(keptFile(tools))).toBe(true);
      expect(readFileSync(out, "utf8")).toBe(everything.text);
      rmSync(out);
      expect(gen(root, ...args)).toEqual(printed);
      expect(readFileSync(out, "utf8")).toBe(everything.text);
    }
  });

  it("takes a kept file it cannot use (not JSON, not build information, another file's) as no kept file", () => {
    const { root, tools, out } = toolsFolder(shared);
    expect(gen(root)).toEqual({ code: 0, stderr: "" });
    const bytes = readFileSync(out, "utf8");
    const other = toolsFolder({ "c.ts": "/** C. */\nexport function c(): number {\n  return 1;\n}\n" });
    expect(gen(other.root)).toEqual({ code: 0, stderr: "" });
    for (const kept of ["{not json", "", '{"version":"5.9.3","fileNames":5}', readFileSync(keptFile(other.tools), "utf8")]) {
      writeFileSync(keptFile(tools), kept);
      rmSync(out);
      expect(gen(root)).toEqual({ code: 0, stderr: "" });
      expect(readFileSync(out, "utf8")).toBe(bytes);
    }
    expect(check(tools).rechecked).toEqual([]);
  });

  it("reports a kept error again with its file and line, and `gen --check` keeps nothing", () => {
    const { root, tools } = toolsFolder({ ...shared, "a.ts": shared["a.ts"].replace("paging.page", "paging.pages") });
    const line = "tools/a.ts:7:17 error: Property 'pages' does not exist on type 'Paging'. Did you mean 'page'? (TS2551)";
    const expected = { code: 1, stderr: `${line}\ngen: 1 error; nothing written\n` };
    expect(gen(root)).toEqual(expected);
    expect(existsSync(keptFile(tools))).toBe(true);
    expect(gen(root)).toEqual(expected);
    rmSync(keptFile(tools));
    // Last: `--check` leaves every cache of the process unwritten from then on.
    expect(gen(root, "--check")).toEqual(expected);
    expect(existsSync(keptFile(tools))).toBe(false);
  });
});
