import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { npmScriptArgs } from "../../bench/npm-script.js";
import { runGen, type GenIo } from "../../src/gen/command/run-gen.js";
import { currentInputsHash } from "../../src/shared/inputs-hash.js";
import type { SchemasFile } from "../../src/shared/schemas-file.js";
import { repoRoot, writeTree } from "./support.js";

/** A tools folder far from this project and its tsconfig, importing siblings both ways and Node. */
const toolFiles = {
  "proj/tools/types.ts": "export interface Range {\n  /** First line. */\n  from: number;\n  to: number;\n}\n",
  "proj/tools/lib/format.ts": "export type Style = \"plain\" | \"fancy\";\n",
  "proj/tools/lines.ts": [
    'import { readFileSync } from "node:fs";',
    'import type { Range } from "./types";',
    'import type { Style } from "./lib/format.js";',
    "",
    "/**",
    " * Read some lines.",
    " * @param file The file.",
    " * @param range Which lines.",
    " * @param style How to show them.",
    " */",
    'export function read_lines(file: string, range: Range, style: Style = "plain"): string {',
    '  return readFileSync(file, "utf8").split("\\n").slice(range.from, range.to).join(style === "plain" ? "\\n" : "\\n> ");',
    "}",
    "",
  ].join("\n"),
  "proj/tools/clock.ts": "/** The time. */\nexport const now = (): string => new Date().toISOString();\n",
};

function run(argv: string[], cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: GenIo = { cwd, stdout: (text) => out.push(text), stderr: (text) => err.push(text) };
  const code = runGen(argv, io);
  return { code, stdout: out.join(""), stderr: err.join("") };
}

let root: string;
let outFile: string;
const args = () => ["--tools", "proj/tools", "--out", "elsewhere/out/schemas.json"];

beforeAll(() => {
  root = writeTree(toolFiles);
  outFile = path.join(root, "elsewhere/out/schemas.json");
});

describe("--tools and --out outside the project", () => {
  it("writes the schemas file with paths relative to it", () => {
    const result = run(args(), root);
    expect(result).toEqual({ code: 0, stdout: "gen: 2 tools → elsewhere/out/schemas.json\n", stderr: "" });
    const file = JSON.parse(readFileSync(outFile, "utf8")) as SchemasFile;
    expect(file.tools.map((tool) => tool.function.name)).toEqual(["now", "read_lines"]);
    expect(file.bindings).toEqual([
      { name: "now", file: "../../proj/tools/clock.ts", exportName: "now", call: { kind: "positional", params: [] } },
      { name: "read_lines", file: "../../proj/tools/lines.ts", exportName: "read_lines", call: { kind: "positional", params: ["file", "range", "style"] } },
    ]);
    expect(file.inputs.toolsDir).toBe("../../proj/tools");
    expect(file.inputs.files).toEqual(["../../proj/tools/clock.ts", "../../proj/tools/lib/format.ts", "../../proj/tools/lines.ts", "../../proj/tools/types.ts"]);
    expect(file.inputs.hash).toBe(currentInputsHash(path.dirname(outFile), { toolsDir: file.inputs.toolsDir, files: file.inputs.files }));
    expect(file.tools[1]!.function.parameters).toEqual({
      type: "object",
      properties: {
        file: { type: "string", description: "The file." },
        range: {
          type: "object", description: "Which lines.",
          properties: { from: { type: "number", description: "First line." }, to: { type: "number" } },
          additionalProperties: false, required: ["from", "to"],
        },
        style: { type: "string", description: "How to show them.", enum: ["plain", "fancy"], default: "plain" },
      },
      additionalProperties: false,
      required: ["file", "range"],
    });
  });

  it("is byte-identical run after run, also from the real CLI in its own process", () => {
    run(args(), root);
    const first = readFileSync(outFile, "utf8");
    rmSync(outFile);
    run(args(), root);
    expect(readFileSync(outFile, "utf8")).toBe(first);
    expect(first.endsWith("}\n")).toBe(true);
    rmSync(outFile);
    // The process `npm run gen` starts (package.json's script), npm's own start-up left out.
    execFileSync(process.execPath, [...npmScriptArgs(repoRoot, "gen"), ...args()], { cwd: root, stdio: "pipe" });
    expect(readFileSync(outFile, "utf8")).toBe(first);
  });
});

describe("--check", () => {
  it("exits 0 and writes nothing when the file is current", () => {
    run(args(), root);
    const before = readFileSync(outFile, "utf8");
    expect(run([...args(), "--check"], root)).toEqual({ code: 0, stdout: "elsewhere/out/schemas.json is up to date\n", stderr: "" });
    expect(readFileSync(outFile, "utf8")).toBe(before);
  });

  it("exits 1 naming the tools added, removed and changed, and writes nothing", () => {
    run(args(), root);
    const before = readFileSync(outFile, "utf8");
    const tools = path.join(root, "proj/tools");
    writeFileSync(path.join(tools, "types.ts"), "export interface Range {\n  from: number;\n  to?: number;\n}\n");
    renameSync(path.join(tools, "clock.ts"), path.join(tools, "clock2.ts"));
    writeFileSync(path.join(tools, "clock2.ts"), "/** The time. */\nexport const time_now = (): string => new Date().toISOString();\n");
    try {
      expect(run([...args(), "--check"], root)).toEqual({
        code: 1,
        stdout: "",
        stderr: "elsewhere/out/schemas.json is stale (added: time_now; removed: now; changed: read_lines); run npm run gen\n",
      });
      expect(readFileSync(outFile, "utf8")).toBe(before);
    } finally {
      writeFileSync(path.join(tools, "types.ts"), toolFiles["proj/tools/types.ts"]);
      rmSync(path.join(tools, "clock2.ts"));
      writeFileSync(path.join(tools, "clock.ts"), toolFiles["proj/tools/clock.ts"]);
    }
  });

  it("exits 1 when the file is missing or is no schemas file, saying which", () => {
    rmSync(outFile, { force: true });
    expect(run([...args(), "--check"], root)).toEqual({
      code: 1,
      stdout: "",
      stderr: "elsewhere/out/schemas.json is stale (it does not exist); run npm run gen\n",
    });
    mkdirSync(path.dirname(outFile), { recursive: true });
    for (const [text, why] of [["{not json", "it is not JSON"], ["[1]", "it is JSON but no schemas file: it has no tools array"], ["null", "it is JSON but no schemas file: it has no tools array"]] as const) {
      writeFileSync(outFile, text);
      expect(run([...args(), "--check"], root)).toEqual({ code: 1, stdout: "", stderr: `elsewhere/out/schemas.json is stale (${why}); run npm run gen\n` });
    }
    rmSync(outFile, { force: true });
  });
});

describe("the library gen compiles tools with", () => {
  it("is the compiler's own ES2022 library, even where a @typescript/lib-* replacement package is installed", () => {
    const project = writeTree({
      "node_modules/@typescript/lib-es5/package.json": '{ "name": "@typescript/lib-es5", "version": "1.0.0", "types": "index.d.ts" }',
      "node_modules/@typescript/lib-es5/index.d.ts": "declare var replaced: number;\n",
      "tools/add.ts": "/**\n * Adds one.\n * @param a A number.\n */\nexport function add(a: number): number {\n  return a + 1;\n}\n",
    });
    // The process `npm run gen` starts, from the project: TypeScript looks for replacements from the current directory.
    execFileSync(process.execPath, [...npmScriptArgs(repoRoot, "gen"), "--tools", "tools", "--out", "out.json"], { cwd: project, stdio: "pipe" });
    const written = JSON.parse(readFileSync(path.join(project, "out.json"), "utf8")) as SchemasFile;
    expect(written.tools.map((tool) => tool.function.name)).toEqual(["add"]);
  });
});
