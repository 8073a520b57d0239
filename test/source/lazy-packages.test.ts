/**
 * What the agent loads before it knows what a run needs: the packages its entries reach through static
 * imports alone. The MCP SDK, the Anthropic SDK, the diff library and jose cost 0.1–0.3 s of start-up
 * each, so they load with the `import()` of the module that uses them (a run that names MCP servers, the
 * provider chosen, the first approval preview, a token check), never with every run.
 */
import path from "node:path";
import { build, type Metafile } from "esbuild";
import { expect, it } from "vitest";
import { repoRoot } from "./import-graph.js";

const LAZY_PACKAGES = ["@modelcontextprotocol/sdk", "@anthropic-ai/sdk", "diff", "jose"];

/** The packages reached from `entry` through static imports (esbuild keeps `import()` apart). */
async function packagesLoadedAtStart(entry: string): Promise<string[]> {
  const { metafile } = await build({ entryPoints: [path.join(repoRoot, entry)], absWorkingDir: repoRoot, bundle: true, packages: "external", platform: "node", format: "esm", write: false, metafile: true, logLevel: "silent", outdir: "out" });
  const inputs: Metafile["inputs"] = metafile.inputs;
  const seen = new Set([entry]);
  const pending = [entry];
  const packages = new Set<string>();
  while (pending.length > 0) {
    for (const imported of inputs[pending.pop()!]?.imports ?? []) {
      if (imported.kind !== "import-statement") continue;
      if (imported.external) packages.add(imported.path);
      else if (!seen.has(imported.path)) {
        seen.add(imported.path);
        pending.push(imported.path);
      }
    }
  }
  return [...packages].sort();
}

it.each(["src/bin/sigloop.ts", "src/bin/run-sigloop.ts", "src/cli/agent-process.ts", "scripts/agent.ts"])("%s loads none of the packages only some runs need", async (entry) => {
  const loaded = await packagesLoadedAtStart(entry);
  expect(loaded.filter((name) => LAZY_PACKAGES.some((lazy) => name === lazy || name.startsWith(`${lazy}/`)))).toEqual([]);
});
