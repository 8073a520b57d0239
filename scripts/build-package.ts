/**
 * `npm pack` runs this (`prepack`): builds dist/ from src/ and tools/, then writes the demo's tools folder
 * (one file that re-exports the built-in tools, as a user's project would) and its schemas, so
 * `npx sigloop demo` needs no generation step. dist/ is rebuilt from scratch every time and never committed.
 *
 * The declarations (with the JSDoc that `sigloop gen` reads from them) come from tsc, one per module as
 * before. The JavaScript is bundled with esbuild: the public entry points (package.json "exports") and the
 * bin, split so that a module both reach is one shared chunk, loaded once (one `toolContext` store, one
 * runtime), and each of the bin's lazily imported commands stays a chunk of its own. Packages stay imports,
 * but for the `openai` SDK (bundle-package.ts says why).
 * Why: Node loads a few files faster than a hundred small ones, ~20 ms of a cold `sigloop gen`
 * (docs/gen.md, "Benchmark"), ~90 ms of the agent's start-up for the SDK (docs/package.md).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundlePackage } from "./bundle-package.js";
import { processIo, runGen } from "../src/gen/command/run-gen.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", path.join(root, "tsconfig.build.json"), "--emitDeclarationOnly"], { stdio: "inherit" });
await bundlePackage(root, dist);

const demoTools = path.join(dist, "demo", "tools");
mkdirSync(demoTools, { recursive: true });
writeFileSync(path.join(demoTools, "built_in.ts"), `export { get_time, list_files, read_file } from "../../src/tools.js";\n`);
const code = runGen(["--tools", demoTools, "--out", path.join(dist, "demo", "schemas.json")], { ...processIo(), cwd: root });
if (code !== 0) process.exit(typeof code === "number" ? code : 1);
