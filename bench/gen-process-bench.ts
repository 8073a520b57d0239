/**
 * The gen headline: cold `gen --tools DIR --out FILE` as a user runs it (the process `npm run gen`
 * starts, npm's own start-up left out), a fresh process each time, against the baseline
 * a user would pick instead: one typescript-json-schema pass, as a plain node process, over the same
 * parameters written as interfaces (required, noExtraProps, ref false, strict, target ES2022; its other
 * options at their defaults). Both run from the project root, so both see its node_modules/@types.
 *
 * 500 tools over 50 files sharing a `types.ts`; once with tools that use nothing from Node, once with
 * tools that import `node:fs` and read `process.env`, once with tools that import `node:fs/promises` and
 * `node:path` and read `process.env`. Runs alternate; the ratio is the median of the
 * per-round ratios, so load from other work falls on both sides alike. "Cold" means a new process that
 * reads, parses and binds every tool file afresh and builds every schema. gen keeps caches between runs
 * in node_modules/.cache/sigloop (the compiler's code cache, the ES library's files, the bundle of
 * `npm run gen`'s sources, the subset of Node's typings a tools folder reaches, and the compiler's
 * diagnostics of the files that did not change): the main rows run with them as the warm-up round left
 * them, as every run after the first one does. For the tools that import
 * `node:fs/promises` two more rows say what the caches are worth: the first run ever (every cache of
 * sigloop removed before each sigloop run: the first `npm run gen` after `npm ci`, the first
 * `sigloop gen` after an install) and a run after a one-line edit of a tool's body (caches warm, as
 * when a user edits a tool and runs gen again).
 *
 * A second sigloop column runs what a package user runs: the compiled bin of the packed tarball installed
 * into a fresh project (`node_modules/.bin/sigloop gen`, plain JavaScript, no TypeScript loader).
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { binPath, installedProject } from "./installed-project.js";
import { npmScriptArgs } from "./npm-script.js";
import { headlineRow, printTable, type HeadlineRound } from "./table.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TOOLS = 500;
const ROUNDS = 9;

/** What the tool files use of Node: nothing, `node:fs` and `process.env`, or `node:fs/promises`, `node:path` and `process.env`. */
export type NodeUse = "nothing" | "fs" | "fs/promises";
const NODE_USES: readonly NodeUse[] = ["nothing", "fs", "fs/promises"];
const ROW_LABELS: Record<NodeUse, string> = {
  nothing: "tools use nothing from Node",
  fs: "tools import `node:fs`, read `process.env`",
  "fs/promises": "tools import `node:fs/promises` and `node:path`, read `process.env`",
};

/** How a row's sigloop runs find the caches: as the run before left them, all removed, or warm after an edit of a tool. */
type CacheState = "warm" | "first run ever" | "after a one-line edit";
const ROWS: readonly { nodeUse: NodeUse; caches: CacheState }[] = [
  ...NODE_USES.map((nodeUse) => ({ nodeUse, caches: "warm" as const })),
  { nodeUse: "fs/promises", caches: "first run ever" },
  { nodeUse: "fs/promises", caches: "after a one-line edit" },
];

export async function runGenAsUsersRun(): Promise<void> {
  // Inside the project (git-ignored tmp/), as a user's tools folder would be.
  const work = path.join(root, "tmp", `gen-process-bench-${process.pid}`);
  try {
    const project = await installedProject();
    const bin = binPath(project);
    const rows: string[][] = [];
    const sets = new Map(NODE_USES.map((nodeUse) => [nodeUse, writeToolSet(path.join(work, nodeUse.replace("/", "-")), TOOLS, nodeUse)]));
    for (const { nodeUse, caches } of ROWS) {
      const set = sets.get(nodeUse)!;
      let edits = 0;
      const before = (cacheRoot: string) => {
        if (caches === "first run ever") rmSync(path.join(cacheRoot, "node_modules", ".cache", "sigloop"), { recursive: true, force: true });
        if (caches === "after a one-line edit") editOneLine(set.tools, edits++);
      };
      const rounds: HeadlineRound[] = [];
      for (let round = 0; round <= ROUNDS; round++) {
        process.stderr.write(`bench: gen as a process (tools use ${nodeUse}, caches ${caches}), round ${round}/${ROUNDS}…\n`);
        before(root);
        const ours = await timeProcess([process.execPath, ...npmScriptArgs(root, "gen"), "--tools", set.tools, "--out", path.join(set.dir, "schemas.json")]);
        before(project);
        const installed = await timeProcess([bin, "gen", "--tools", set.tools, "--out", path.join(set.dir, "compiled.json")]);
        const theirs = await timeProcess([process.execPath, path.join(root, "bench", "baselines", "tjs-pass.mjs"), set.interfaces, path.join(set.dir, "tjs.json")]);
        // Round 0 only checks the outputs and warms the file cache and the code cache.
        if (round === 0) {
          checkOutputs(set.dir);
          continue;
        }
        rounds.push({ script: ours, installed, baseline: theirs });
      }
      rows.push(headlineRow(caches === "warm" ? ROW_LABELS[nodeUse] : `${ROW_LABELS[nodeUse]}: ${caches}`, rounds, 0));
    }
    printTable(`gen as users run it: cold \`gen --tools DIR --out FILE\` at ${TOOLS} tools, a process each (median of ${ROUNDS}, alternating)`, [
      "tools", "sigloop gen (`npm run gen` without npm)", "installed bin, compiled (`sigloop gen`)", "baseline: one typescript-json-schema pass (node)",
      "ratio `npm run gen` (goal ≤ 0.65x)", "ratio installed bin",
    ], rows);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * A one-line edit of the first tool file's body, a different one each time: what a user changes before
 * running gen again. It changes no schema, only the inputs' hash.
 */
function editOneLine(toolsDir: string, edit: number): void {
  const file = path.join(toolsDir, "tools_0.ts");
  const text = readFileSync(file, "utf8");
  const edited = text.replace(/^  (?:void \d+; )?return /m, `  void ${edit}; return `);
  if (edited === text) throw new Error(`no tool body to edit in ${file}`);
  writeFileSync(file, edited);
}

/** Wall time of one process, `command` being the executable and then its arguments. */
function timeProcess(command: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command[0]!, command.slice(1), { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(performance.now() - start);
      else reject(new Error(`${command.join(" ")} exited with ${String(code)}: ${stderr.slice(0, 800)}`));
    });
  });
}

function checkOutputs(dir: string): void {
  const tools = (file: string) => (JSON.parse(readFileSync(path.join(dir, file), "utf8")) as { tools: unknown[] }).tools.length;
  const ours = tools("schemas.json");
  const installed = tools("compiled.json");
  const theirs = Object.keys((JSON.parse(readFileSync(path.join(dir, "tjs.json"), "utf8")) as { definitions: object }).definitions).length;
  if (ours !== TOOLS || installed !== TOOLS || theirs !== TOOLS) {
    throw new Error(`expected ${TOOLS} schemas each, got ${ours} from gen, ${installed} from the installed bin and ${theirs} from typescript-json-schema`);
  }
}

const NODE_IMPORTS: Record<NodeUse, string[]> = {
  nothing: [],
  fs: ['import { existsSync } from "node:fs";'],
  "fs/promises": ['import { readFile } from "node:fs/promises";', 'import path from "node:path";'],
};
const NODE_BODIES: Record<NodeUse, string[]> = {
  nothing: ["  return query + filters.length + (paging?.page ?? 0) + mode + tags.length;"],
  fs: ['  return query + filters.length + (paging?.page ?? 0) + mode + tags.length + String(existsSync(process.env.HOME ?? "."));'],
  "fs/promises": [
    '  const notes = await readFile(path.join(process.env.HOME ?? ".", "notes.txt"), "utf8");',
    "  return query + filters.length + (paging?.page ?? 0) + mode + tags.length + notes.length;",
  ],
};

/**
 * `size` tools over files of ten, sharing types from `types.ts`, and the same parameters as interfaces.
 * With Node (`nodeUse`), each tool file imports a Node module or two and reads `process.env`, as most
 * real tools do.
 */
export function writeToolSet(dir: string, size: number, nodeUse: NodeUse): { dir: string; tools: string; interfaces: string } {
  const tools = path.join(dir, "tools");
  const interfaces = path.join(dir, "interfaces");
  mkdirSync(tools, { recursive: true });
  mkdirSync(interfaces, { recursive: true });
  const shared = [
    'export type Mode = "fast" | "thorough";',
    "/** Which rows to keep. */",
    "export interface Filter {",
    "  /** Field name. */",
    "  field: string;",
    '  op: "eq" | "lt" | "gt";',
    "  value: string | number | null;",
    "}",
    "export interface Paging {",
    "  /** @minimum 1 */",
    "  page: number;",
    "  size?: number;",
    "}",
    "",
  ].join("\n");
  writeFileSync(path.join(tools, "types.ts"), shared);
  writeFileSync(path.join(interfaces, "types.ts"), shared);
  for (let fileIndex = 0; fileIndex < size / 10; fileIndex++) {
    const toolLines = ['import type { Filter, Mode, Paging } from "./types";', ...NODE_IMPORTS[nodeUse], ""];
    const paramLines = ['import type { Filter, Mode, Paging } from "./types";', ""];
    for (let i = 0; i < 10; i++) {
      const name = `tool_${fileIndex}_${i}`;
      toolLines.push(
        "/**",
        ` * Tool ${name}: searches records, then processes them.`,
        " * @param query What to look for.",
        " * @param filters Conditions to apply.",
        " * @param paging Which page.",
        " * @param mode How hard to look.",
        " * @param tags Labels.",
        " */",
        `export async function ${name}(query: string, filters: Filter[], paging?: Paging, mode: Mode = "fast", tags: string[] = []): Promise<string> {`,
        ...NODE_BODIES[nodeUse],
        "}",
        "",
      );
      paramLines.push(
        `/** Tool ${name}: searches records, then processes them. */`,
        `export interface ${name}_params {`,
        "  /** What to look for. */",
        "  query: string;",
        "  /** Conditions to apply. */",
        "  filters: Filter[];",
        "  /** Which page. */",
        "  paging?: Paging;",
        "  /**",
        "   * How hard to look.",
        '   * @default "fast"',
        "   */",
        "  mode?: Mode;",
        "  /**",
        "   * Labels.",
        "   * @default []",
        "   */",
        "  tags?: string[];",
        "}",
        "",
      );
    }
    writeFileSync(path.join(tools, `tools_${fileIndex}.ts`), toolLines.join("\n"));
    writeFileSync(path.join(interfaces, `params_${fileIndex}.ts`), paramLines.join("\n"));
  }
  return { dir, tools, interfaces };
}
