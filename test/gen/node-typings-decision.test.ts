import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ts } from "../../src/gen/program/compiler.js";
import { NODE_GLOBALS, mentionsNodeGlobal as namesNodeGlobal } from "../../src/gen/program/node-globals.js";
import { ToolHost } from "../../src/gen/program/tool-host.js";
import { needsNodeTypes, toolCompilerOptions } from "../../src/gen/program/tool-project.js";
import path from "node:path";
import { generate, messages, writeTree } from "./support.js";

const mentionsNodeGlobal = (code: string) => namesNodeGlobal(ts.createSourceFile("t.ts", code, ts.ScriptTarget.ES2022));

describe("whether a tool file's code names a Node global", () => {
  it.each([
    ["process.env", "export function f(): string { return process.env.HOME ?? ''; }"],
    ["Buffer", "export function f(text: string): number { return Buffer.byteLength(text); }"],
    ["setTimeout", "export async function f(): Promise<void> { await new Promise((done) => setTimeout(done, 1)); }"],
    ["new URL", "export function f(link: string): string { return new URL(link).host; }"],
    ["fetch", "export async function f(link: string): Promise<number> { return (await fetch(link)).status; }"],
    ["a template's expression", "export function f(): string { return `home: ${process.env.HOME}`; }"],
    ["a nested template's expression", "export function f(): string { return `a ${`b ${console.log('x')}`} c`; }"],
    ["a condition", "export function f(): string { return (process ? 'node' : 'other'); }"],
    ["an object's shorthand", "export function f(): object { return { process }; }"],
    ["code after a regular expression", "export function f(): boolean { return /a}b`/.test(String(process.pid)); }"],
    ["a type", "export function f(link: URL): string { return link.host; }"],
    ["`typeof`", "export type Env = typeof process.env;"],
    ["`import … = require(…)`", 'import fs = require("./fs");\nexport const a = fs;'],
    ["a type only Node declares", "export type Encoding = BufferEncoding;"],
    ["Node's namespace", "export function f(env: NodeJS.ProcessEnv): number { return Object.keys(env).length; }"],
    ["a web global Node's typings declare", "export function f(): boolean { return new EventTarget() instanceof Object; }"],
  ])("counts %s", (_name, code) => {
    expect(mentionsNodeGlobal(code)).toBe(true);
  });

  it.each([
    ["a JSDoc comment", "/** Looks up a process, then fetches its URL from the console. */\nexport function f(): number { return 1; }"],
    ["a line comment", "// process.env is not read here\nexport function f(): number { return 1; }"],
    ["a string", "export function f(): string { return 'process Buffer setTimeout'; }"],
    ["a template's text", "export function f(n: number): string { return `process ${n} fetch URL`; }"],
    ["a regular expression", "export function f(text: string): boolean { return /process|Buffer/.test(text); }"],
    ["a property name", "export function f(job: { process: number }): number { return job.process; }"],
    ["an optional property access", "export function f(job?: { fetch: number }): number { return job?.fetch ?? 0; }"],
    ["a parameter's name", "export function f(process?: string, fetch: number = 1): number { return 1; }"],
    ["a division", "export function f(a: number, b: number): number { return a / b / 2; }"],
    ["a member written on its own line after one without a semicolon", "export interface Job {\n  id: string\n  process: number\n}"],
    ["a method's or a modified member's name", "export interface Job { fetch(): void; readonly URL?: string }"],
    ["a destructured key", "export function f({ process: p }: { process: number }): number { return p; }"],
  ])("does not count %s", (_name, code) => {
    expect(mentionsNodeGlobal(code)).toBe(false);
  });

  it("never counts a Node global's name inside a comment or a string, whatever surrounds it", () => {
    const word = fc.constantFrom("process", "Buffer", "fetch", "URL", "console", "setTimeout");
    const text = fc.string().filter((value) => !/[*/'\\\n\r\u2028\u2029]/.test(value));
    fc.assert(
      fc.property(word, text, text, (name, before, after) => {
        const inComment = `/** ${before} ${name} ${after} */\nexport const a = 1;`;
        const inString = `export const b = '${before}${name}${after}';`;
        return !mentionsNodeGlobal(inComment) && !mentionsNodeGlobal(inString);
      }),
    );
  });
});

describe("the names counted as Node's globals", () => {
  it("are exactly the names Node's installed typings add to the global scope under gen's library", () => {
    const empty = path.join(writeTree({ "empty.ts": "export {};\n" }), "empty.ts");
    const globalNames = (withNodeTypes: boolean) => {
      const program = new ToolHost().createProgram([empty], toolCompilerOptions(withNodeTypes));
      const scope = program.getTypeChecker().getSymbolsInScope(program.getSourceFile(empty)!, ts.SymbolFlags.Value | ts.SymbolFlags.Type | ts.SymbolFlags.Namespace);
      // Ambient modules (`"node:fs"`) are reached through imports, which gen counts on their own.
      return new Set(scope.map((symbol) => symbol.name).filter((name) => !name.startsWith('"')));
    };
    const withoutNode = globalNames(false);
    const added = [...globalNames(true)].filter((name) => !withoutNode.has(name)).sort();
    expect([...NODE_GLOBALS].sort()).toEqual(added);
  });
});

describe("gen's choice of Node's typings", () => {
  it("does not load them for a tool whose comments talk about processes and URLs", () => {
    const root = writeTree({
      "tools/jobs.ts": "/**\n * Describes a process: fetch its URL, print it to the console.\n * @param name The process name.\n */\nexport function describe_process(name: string): string {\n  return `process ${name}`;\n}\n",
    });
    expect(needsNodeTypes([path.join(root, "tools", "jobs.ts")], new ToolHost())).toBe(false);
    expect(messages(generate(path.join(root, "tools")).diagnostics)).toEqual([]);
  });

  it("loads them for a tool that imports a Node module only dynamically or in a type", () => {
    const root = writeTree({
      "tools/load.ts": '/** Whether a file exists. @param file A path. */\nexport async function exists(file: string): Promise<boolean> {\n  return (await import("node:fs")).existsSync(file);\n}\n',
      "tools/stats.ts": 'type Stats = import("fs").Stats;\n/** A size. @param size Bytes. */\nexport function size_of(size: number): number {\n  const stats: Stats | undefined = undefined;\n  return stats === undefined ? size : 0;\n}\n',
    });
    expect(needsNodeTypes([path.join(root, "tools", "load.ts")], new ToolHost())).toBe(true);
    expect(needsNodeTypes([path.join(root, "tools", "stats.ts")], new ToolHost())).toBe(true);
    expect(messages(generate(path.join(root, "tools")).diagnostics)).toEqual([]);
  });

  it("does not load them for a tool whose local import only talks about processes in comments", () => {
    const root = writeTree({
      "tools/jobs.ts": 'import type { Job } from "../lib/job";\n/** Names a job. @param job The job. */\nexport function name_job(job: Job): string {\n  return job.name;\n}\n',
      "lib/job.ts": "/** A process to run; fetch it from the console. */\nexport interface Job {\n  name: string\n  process: number\n}\n",
    });
    expect(needsNodeTypes([path.join(root, "tools", "jobs.ts")], new ToolHost())).toBe(false);
    expect(messages(generate(path.join(root, "tools")).diagnostics)).toEqual([]);
  });

  it("loads them for a tool whose local import names a type only Node declares, with no import of Node's", () => {
    const root = writeTree({
      "tools/save.ts": 'import type { Encoding } from "../lib/encoding";\n/**\n * Saves text.\n * @param encoding How to write it.\n */\nexport function save(encoding: Encoding): string {\n  return encoding;\n}\n',
      "lib/encoding.ts": "export type Encoding = BufferEncoding;\n",
    });
    expect(needsNodeTypes([path.join(root, "tools", "save.ts")], new ToolHost())).toBe(true);
    const generation = generate(path.join(root, "tools"));
    expect(messages(generation.diagnostics)).toEqual([]);
    expect(generation.file!.tools[0]!.function.parameters.properties.encoding).toMatchObject({ type: "string", enum: expect.arrayContaining(["utf8", "base64", "hex"]) });
  });

  it("loads them for a tool that imports node:fs or reads process.env, through a local import too", () => {
    const root = writeTree({
      "tools/files.ts": 'import { home } from "../lib/env";\n/** Whether the home folder is set. */\nexport function has_home(): boolean {\n  return home() !== "";\n}\n',
      "lib/env.ts": "export function home(): string {\n  return process.env.HOME ?? \"\";\n}\n",
      "other/reads.ts": 'import { existsSync } from "node:fs";\n/** @param file A path. */\nexport function exists(file: string): boolean {\n  return existsSync(file);\n}\n',
    });
    expect(needsNodeTypes([path.join(root, "tools", "files.ts")], new ToolHost())).toBe(true);
    expect(needsNodeTypes([path.join(root, "other", "reads.ts")], new ToolHost())).toBe(true);
    expect(messages(generate(path.join(root, "tools")).diagnostics)).toEqual([]);
  });
});

describe("documentation a schema takes from Node's typings", () => {
  const recursive = {
    type: "boolean",
    description: "Indicates whether parent folders should be created.\nIf a folder was created, the path to the first created folder will be returned.",
  };
  const mode = { description: "A file mode. If a string is passed, it is parsed as an octal integer. If not specified", anyOf: [{ type: "number" }, { type: "string" }], default: "0o777" };
  const generateOne = (tool: string) => {
    const root = writeTree({ "tools/dirs.ts": `import type { MakeDirectoryOptions } from "node:fs";\n${tool}` });
    const generation = generate(path.join(root, "tools"));
    expect(messages(generation.diagnostics)).toEqual([]);
    return generation.file!.tools[0]!.function.parameters;
  };

  it("is kept for a parameter of one of Node's types: descriptions and @default tags", () => {
    const parameters = generateOne("/**\n * Makes a folder.\n * @param options How.\n */\nexport function make_dir(options: MakeDirectoryOptions): void {}\n");
    expect(parameters.properties.options).toEqual({ type: "object", description: "How.", properties: { recursive: { ...recursive, default: false }, mode }, additionalProperties: false });
  });

  it("is kept for the members of a destructured parameter of one of Node's types", () => {
    const parameters = generateOne("/** Makes a folder. */\nexport function make_dir({ recursive }: MakeDirectoryOptions): void {}\n");
    expect(parameters.properties).toEqual({ recursive: { ...recursive, default: false }, mode });
  });

  it("is inherited by an undocumented member of an interface that extends one of Node's", () => {
    const parameters = generateOne("interface Options extends MakeDirectoryOptions {\n  recursive?: boolean;\n}\n/**\n * Makes a folder.\n * @param options How.\n */\nexport function make_dir(options: Options): void {}\n");
    expect(parameters.properties.options).toEqual({ type: "object", description: "How.", properties: { recursive, mode }, additionalProperties: false });
  });
});
