/**
 * A one-shot `gen` compiles Node-using tools against the subset of Node's typings they reach, kept in
 * node_modules/.cache after the first run: the schemas file and every message must be exactly what the
 * whole typings give, and a run whose files reach beyond the subset must notice and use the whole typings.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runGen, type GenIo } from "../../src/gen/command/run-gen.js";
import { typingsCacheDir } from "../../src/gen/program/typings-cache.js";
import { generate, messages, writeTree } from "./support.js";

const folders: string[] = [];
afterAll(() => {
  for (const tools of folders) rmSync(typingsCacheDir(tools), { recursive: true, force: true });
});

/** A tools folder of its own, with a subset cache no earlier run has written. */
function toolsFolder(files: Record<string, string>): { root: string; tools: string; out: string } {
  const root = writeTree(Object.fromEntries(Object.entries(files).map(([name, text]) => [`tools/${name}`, text])));
  const tools = path.join(root, "tools");
  folders.push(tools);
  rmSync(typingsCacheDir(tools), { recursive: true, force: true });
  return { root, tools, out: path.join(root, "generated", "schemas.json") };
}

function gen(root: string, ...argv: string[]): { code: number; stderr: string } {
  const err: string[] = [];
  const io: GenIo = { cwd: root, stdout: () => {}, stderr: (text) => err.push(text) };
  const code = runGen(["--tools", "tools", "--out", "generated/schemas.json", ...argv], io);
  if (typeof code !== "number") throw new Error("not a one-shot run");
  return { code, stderr: err.join("") };
}

/** What the whole typings give: the generator without the subset, as watch mode runs it. */
function wholeTypingsText(tools: string, out: string): string {
  const generation = generate(tools, out);
  expect(messages(generation.diagnostics)).toEqual([]);
  return generation.text!;
}

const subsetWritten = (tools: string) => statSync(path.join(typingsCacheDir(tools), "subset.json")).mtimeMs;

const fsTools = {
  "notes.ts": [
    'import { readFile } from "node:fs/promises";',
    'import path from "node:path";',
    "",
    "/**",
    " * Read a note from the notes folder.",
    " * @param name The note's file name.",
    " */",
    "export async function read_note(name: string): Promise<{ text: string; bytes: number }> {",
    '  const text = await readFile(path.join(process.env.NOTES ?? ".", name), "utf8");',
    "  return { text, bytes: Buffer.byteLength(text) };",
    "}",
    "",
  ].join("\n"),
};

describe("Node's typings, a subset kept for the next run", () => {
  it("gives the bytes of the whole typings, from the first run (which writes it) and from the next (which uses it)", () => {
    const { root, tools, out } = toolsFolder(fsTools);
    const whole = wholeTypingsText(tools, out);
    expect(gen(root)).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(out, "utf8")).toBe(whole);
    const written = subsetWritten(tools);
    rmSync(out);
    expect(gen(root)).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(out, "utf8")).toBe(whole);
    // Not written again: the second run found everything it needed in it.
    expect(subsetWritten(tools)).toBe(written);
  });

  it("holds what tools reach through many Node modules, globals and a namespace import, without a type error", () => {
    const { root, tools, out } = toolsFolder({
      "many.ts": [
        'import { createHash } from "node:crypto";',
        'import { EventEmitter } from "node:events";',
        'import * as fs from "node:fs";',
        'import { hostname } from "node:os";',
        'import { pipeline } from "node:stream/promises";',
        'import { URL } from "node:url";',
        'import { promisify } from "node:util";',
        "",
        "class Ticker extends EventEmitter {}",
        "",
        "/**",
        " * Hash a file and describe where it was read.",
        " * @param file The file.",
        " * @param link A link to parse.",
        " */",
        "export async function hash_file(file: string, link: string): Promise<{ digest: string; host: string; port: string; size: number }> {",
        '  const hash = createHash("sha256");',
        "  await pipeline(fs.createReadStream(file), hash);",
        "  const size = (await promisify(fs.stat)(file)).size;",
        "  const timer: NodeJS.Timeout = setTimeout(() => new Ticker().emit(\"tick\"), 1);",
        "  clearTimeout(timer);",
        '  const os = process.getBuiltinModule("node:os");',
        '  return { digest: hash.digest("hex"), host: `${hostname()} ${os.platform()}`, port: new URL(link).port, size };',
        "}",
        "",
      ].join("\n"),
    });
    const whole = wholeTypingsText(tools, out);
    expect(gen(root)).toEqual({ code: 0, stderr: "" });
    const written = subsetWritten(tools);
    expect(gen(root)).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(out, "utf8")).toBe(whole);
    expect(subsetWritten(tools)).toBe(written);
  });

  it("holds a type only Node declares, named by a local file with no import of Node's", () => {
    const { root, tools, out } = toolsFolder({
      "types.ts": "export type Encoding = BufferEncoding;\n",
      "save.ts": 'import type { Encoding } from "./types";\n/**\n * Saves text.\n * @param encoding How to write it.\n */\nexport function save(encoding: Encoding): string {\n  return encoding;\n}\n',
    });
    const whole = wholeTypingsText(tools, out);
    expect(gen(root)).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(out, "utf8")).toBe(whole);
    expect(gen(root)).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(out, "utf8")).toBe(whole);
  });

  it("reports a type error with its file, line and the whole typings' own words", () => {
    const { root, tools, out } = toolsFolder(fsTools);
    expect(gen(root).code).toBe(0);
    // The compiler's suggestion comes from all of Node's globals, most of which the subset leaves out.
    writeFileSync(path.join(tools, "notes.ts"), fsTools["notes.ts"].replace("process.env.NOTES", "structuredClon(process.env.NOTES)"));
    const line = "tools/notes.ts:9:41 error: Cannot find name 'structuredClon'. Did you mean 'structuredClone'? (TS2552)";
    expect(messages(generate(tools, out).diagnostics, root)).toEqual([line]);
    expect(gen(root)).toEqual({ code: 1, stderr: `${line}\ngen: 1 error; nothing written\n` });
  });

  it("notices a tool that reaches further than the subset holds (a newly imported module), and writes it again", () => {
    const { root, tools, out } = toolsFolder(fsTools);
    expect(gen(root).code).toBe(0);
    const written = subsetWritten(tools);
    writeFileSync(path.join(tools, "ids.ts"), 'import { randomUUID } from "node:crypto";\n\n/** A new id. */\nexport function new_id(): string {\n  return randomUUID();\n}\n');
    expect(gen(root)).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(out, "utf8")).toBe(wholeTypingsText(tools, out));
    expect(subsetWritten(tools)).not.toBe(written);
  });

  it("leaves documentation a schema takes from Node's typings to the whole typings", () => {
    const { root, tools, out } = toolsFolder({
      "dirs.ts": 'import type { MakeDirectoryOptions } from "node:fs";\n/**\n * Makes a folder.\n * @param options How.\n */\nexport function make_dir(options: MakeDirectoryOptions): string {\n  return process.cwd();\n}\n',
    });
    const whole = wholeTypingsText(tools, out);
    expect(whole).toContain("Indicates whether parent folders should be created.");
    expect(gen(root).code).toBe(0);
    expect(gen(root).code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(whole);
  });

  it("is not written by gen --check, which writes nothing", () => {
    const { root, tools } = toolsFolder(fsTools);
    expect(gen(root, "--check").code).toBe(1);
    expect(existsSync(typingsCacheDir(tools))).toBe(false);
  });
});
