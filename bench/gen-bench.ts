/**
 * `npm run bench -- gen`: first the headline, gen as users run it (bench/gen-process-bench.ts); then,
 * as extra rows, cold `gen` time and peak memory on synthetic tool sets of 10, 100 and 500
 * functions (files of ten, sharing imported types), the watch-mode regeneration after a one-line edit
 * at 500 tools, and, in the same run, the baseline users have without us: plain typescript-json-schema
 * (its `buildGenerator` + `getSchemaForSymbols`, as its CLI does) over equivalent hand-written
 * parameter interfaces.
 *
 * The baseline is the typescript-json-schema CLI as a user runs it on those interfaces (its defaults,
 * plus --required --noExtraProps --strictNullChecks for comparable schemas). Two friendlier baselines
 * give it this project's own tsconfig options (lib ES2022, skipLibCheck, types ["node"]), and those
 * options with `types: []`, which is what gen itself compiles these tools with.
 *
 * Cold runs are separate processes (`tsx bench/gen-bench.ts --child …`): each reports the time from
 * its own process start to the end of its work (module loading included) and its peak RSS. The watch
 * figure is measured in process on a warm generator: file change applied, affected files re-checked,
 * tools rebuilt, file serialized, hashed and written (the fs.watch debounce is not included).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runGenAsUsersRun, writeToolSet } from "./gen-process-bench.js";
import { median, printTable } from "./table.js";

const SIZES = [10, 100, 500];
const COLD_RUNS = 5;
const WATCH_EDITS = 7;
const here = path.dirname(fileURLToPath(import.meta.url));
const tsxBin = path.join(here, "..", "node_modules", ".bin", "tsx");

interface ChildReport {
  ms: number;
  rssMb: number;
  tools: number;
}

export async function run(): Promise<void> {
  await runGenAsUsersRun();
  const root = mkdtempSync(path.join(os.tmpdir(), "sigloop-gen-bench-"));
  try {
    const rows: string[][] = [];
    for (const size of SIZES) {
      const dirs = writeToolSet(path.join(root, String(size)), size, "nothing");
      // Runs are interleaved (ours, then the baselines, repeated) and each ratio is taken within one
      // round, so load from other work on the machine falls on both sides alike.
      const rounds = Array.from({ length: COLD_RUNS }, (_, round) => {
        process.stderr.write(`bench: gen cold at ${size}, round ${round + 1}/${COLD_RUNS}…\n`);
        return {
          gen: measureOnce("gen", dirs.tools, path.join(dirs.dir, "schemas.json"), size),
          cli: measureOnce("baseline-cli", dirs.interfaces, path.join(dirs.dir, "baseline-cli.json"), size),
          tuned: measureOnce("baseline-tsconfig", dirs.interfaces, "", size),
          same: measureOnce("baseline-gen-options", dirs.interfaces, "", size),
        };
      });
      const summary = (pick: (round: (typeof rounds)[number]) => ChildReport) =>
        `${fmt(median(rounds.map((round) => pick(round).ms)))} ms / ${Math.max(...rounds.map((round) => pick(round).rssMb)).toFixed(0)} MB`;
      const ratio = (baseline: (round: (typeof rounds)[number]) => ChildReport) =>
        `${median(rounds.map((round) => round.gen.ms / baseline(round).ms)).toFixed(2)}x`;
      let watch = "";
      if (size === 500) {
        process.stderr.write("bench: gen watch at 500…\n");
        const withNode = writeToolSet(path.join(root, "500-node"), size, "fs/promises");
        const plain = median(await measureWatch(dirs.tools, path.join(dirs.dir, "schemas.json")));
        const node = median(await measureWatch(withNode.tools, path.join(withNode.dir, "schemas.json")));
        watch = `${fmt(plain)} ms (tools importing \`node:fs/promises\`, \`node:path\`: ${fmt(node)} ms)`;
      }
      rows.push([
        String(size), summary((r) => r.gen), summary((r) => r.cli), `**${ratio((r) => r.cli)}**`,
        summary((r) => r.tuned), ratio((r) => r.tuned), summary((r) => r.same), ratio((r) => r.same), watch,
      ]);
    }
    printTable("gen: cold run (median wall / peak RSS; ratio = median of per-round ratios) and watch regeneration", [
      "tools", "sigloop gen", "baseline: typescript-json-schema CLI", "ratio (target ≤ 0.65x)",
      "typescript-json-schema with this repo's tsconfig", "ratio",
      "typescript-json-schema with gen's options (types [])", "ratio", "watch: one-line edit (target < 150 ms)",
    ], rows);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function fmt(ms: number): string {
  return ms.toFixed(0);
}

/** One cold run in a fresh process. */
function measureOnce(kind: "gen" | "baseline-cli" | "baseline-tsconfig" | "baseline-gen-options", dir: string, out: string, size: number): ChildReport {
  const output = execFileSync(tsxBin, [fileURLToPath(import.meta.url), "--child", kind, dir, out], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const report = JSON.parse(output.trim().split("\n").pop()!) as ChildReport;
  if (report.tools !== size) throw new Error(`${kind} produced ${report.tools} schemas for ${size} tools`);
  return report;
}

async function measureWatch(toolsDir: string, outFile: string): Promise<number[]> {
  const { ToolGenerator } = await import("../src/gen/tool-generator.js");
  const { writeSchemas } = await import("../src/gen/command/write-schemas.js");
  const generator = ToolGenerator.open(toolsDir, outFile);
  if ("severity" in generator) throw new Error(generator.message);
  const first = generator.generateAll();
  if (first.text === undefined) throw new Error("synthetic tools do not generate");
  writeSchemas(outFile, first.text);
  const file = path.join(toolsDir, "tools_25.ts");
  const original = readFileSync(file, "utf8");
  const times: number[] = [];
  for (let i = 0; i < WATCH_EDITS; i++) {
    writeFileSync(file, original.replace("@param query What to look for.", `@param query What to look for (edit ${i}).`));
    const started = performance.now();
    const generation = generator.update([file]);
    if (generation.text === undefined || !generation.text.includes(`(edit ${i})`)) throw new Error("watch update did not regenerate");
    writeSchemas(outFile, generation.text);
    times.push(performance.now() - started);
  }
  writeFileSync(file, original);
  return times;
}

/** The measured work of one cold run, in this fresh process. */
async function child(kind: string, dir: string, out: string): Promise<void> {
  let tools: number;
  if (kind === "gen") {
    const { runGen } = await import("../src/gen/command/run-gen.js");
    const code = runGen(["--tools", dir, "--out", out], { cwd: process.cwd(), stdout: () => {}, stderr: (text) => process.stderr.write(text) });
    if (code !== 0) throw new Error(`gen exited ${String(code)}`);
    tools = (JSON.parse(readFileSync(out, "utf8")) as { tools: unknown[] }).tools.length;
  } else if (kind === "baseline-cli") {
    // Exactly what `typescript-json-schema "<dir>/*.ts" "*" --required --noExtraProps --strictNullChecks --out <file>` runs.
    const tjs = await import("typescript-json-schema");
    await tjs.exec(path.join(dir, "*.ts"), "*", { ...tjs.getDefaultArgs(), required: true, noExtraProps: true, strictNullChecks: true, out });
    const schema = JSON.parse(readFileSync(out, "utf8")) as { definitions?: Record<string, unknown> };
    tools = Object.keys(schema.definitions ?? {}).filter((name) => name.endsWith("_params")).length;
  } else {
    const tjs = await import("typescript-json-schema");
    const { readdirSync } = await import("node:fs");
    const files = readdirSync(dir).map((name) => path.join(dir, name));
    // The compiler options of this project's own tsconfig (lib ES2022, skipLibCheck, types ["node"]);
    // for "baseline-gen-options" without Node's typings, as gen compiles tools that do not use Node.
    const tsconfig = tjs.ts.readConfigFile(path.join(here, "..", "tsconfig.json"), tjs.ts.sys.readFile).config as { compilerOptions: object };
    const options = kind === "baseline-gen-options" ? { ...tsconfig.compilerOptions, types: [] } : tsconfig.compilerOptions;
    const program = tjs.getProgramFromFiles(files, options, path.join(here, ".."));
    const generator = tjs.buildGenerator(program, { required: true, noExtraProps: true });
    if (generator === null) throw new Error("typescript-json-schema reported errors");
    const names = generator.getUserSymbols().filter((name) => name.endsWith("_params"));
    const schemas = generator.getSchemaForSymbols(names);
    tools = Object.keys(schemas.definitions ?? {}).filter((name) => name.endsWith("_params")).length;
  }
  const rssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ ms: performance.now(), rssMb, tools })}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === "--child") {
  await child(process.argv[3]!, process.argv[4]!, process.argv[5] ?? "");
}
