/**
 * The static import graph of the sources, read from their text: for each module reached, the local modules
 * it imports (type-only imports included: they bind modules together for a reader as much as any other)
 * and the packages. Comments are left out (doc comments hold examples of imports); a local import naming
 * no file is an error, so that nothing escapes the graph unseen.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface ModuleImports {
  modules: string[];
  packages: string[];
}

const COMMENT = /\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm;
const IMPORT = /(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Every module reachable from `entries` by relative imports. */
export function importGraph(entries: readonly string[]): Map<string, ModuleImports> {
  const graph = new Map<string, ModuleImports>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (graph.has(file)) continue;
    const imports: ModuleImports = { modules: [], packages: [] };
    graph.set(file, imports);
    for (const match of readFileSync(file, "utf8").replace(COMMENT, "").matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
      if (!specifier.startsWith(".")) imports.packages.push(specifier);
      else {
        const target = localModule(file, specifier);
        if (!imports.modules.includes(target)) imports.modules.push(target);
      }
    }
    pending.push(...imports.modules);
  }
  return graph;
}

function localModule(importer: string, specifier: string): string {
  const target = path.resolve(path.dirname(importer), specifier);
  const found = [target.replace(/\.js$/, ".ts"), `${target}.ts`, target].find((candidate) => existsSync(candidate));
  if (found === undefined) throw new Error(`${path.relative(repoRoot, importer)} imports ${specifier}, which names no file`);
  return found;
}
