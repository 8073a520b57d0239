/**
 * `npm pack` runs this (`prepack`): compiles src/ and tools/ into dist/ (JavaScript and declarations, with
 * the JSDoc that `sigloop gen` reads from them), then writes the demo's tools folder (one file that
 * re-exports the built-in tools, as a user's project would) and its schemas, so `npx sigloop demo` needs no
 * generation step. dist/ is rebuilt from scratch every time and never committed.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { processIo, runGen } from "../src/gen/run-gen.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", path.join(root, "tsconfig.build.json")], { stdio: "inherit" });

const demoTools = path.join(dist, "demo", "tools");
mkdirSync(demoTools, { recursive: true });
writeFileSync(path.join(demoTools, "built_in.ts"), `export { get_time, list_files, read_file } from "../../src/tools.js";\n`);
const code = runGen(["--tools", demoTools, "--out", path.join(dist, "demo", "schemas.json")], { ...processIo(), cwd: root });
if (code !== 0) process.exit(typeof code === "number" ? code : 1);
