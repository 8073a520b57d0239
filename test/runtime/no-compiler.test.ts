/**
 * The runtime never loads the TypeScript compiler: start-up stays fast and `npm run agent` works where only
 * the runtime's dependencies are. Checked on the static import graph of the CLI entry and the tools.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { importGraph, repoRoot as root, type ModuleImports } from "../source/import-graph.js";

const COMPILER_PACKAGES = ["typescript", "ts-morph", "typescript-json-schema", "@ts-morph/common"];

/** The modules of src/gen in `graph`, and every import of a compiler package, as readable lines. */
function compilerOrGenImports(graph: Map<string, ModuleImports>): string[] {
  return [...graph].flatMap(([file, { packages }]) => [
    ...(file.includes(`${path.sep}src${path.sep}gen${path.sep}`) ? [path.relative(root, file)] : []),
    ...packages.filter((name) => COMPILER_PACKAGES.some((p) => name === p || name.startsWith(`${p}/`))).map((name) => `${path.relative(root, file)} imports ${name}`),
  ]);
}

it("the agent CLI and the tools import no compiler package and nothing from src/gen", () => {
  const tools = readdirSync(path.join(root, "tools")).filter((name) => name.endsWith(".ts")).map((name) => path.join(root, "tools", name));
  const graph = importGraph([path.join(root, "scripts/agent.ts"), ...tools]);
  expect(graph.size).toBeGreaterThan(10);
  expect(compilerOrGenImports(graph)).toEqual([]);
});

it("the dialect conversion imports no compiler package and nothing from src/gen, so the runtime can use it", () => {
  const dir = path.join(root, "src/shared/dialects");
  const entries = readdirSync(dir).filter((name) => name.endsWith(".ts")).map((name) => path.join(dir, name));
  const graph = importGraph(entries);
  expect(graph.size).toBeGreaterThanOrEqual(entries.length);
  expect(compilerOrGenImports(graph)).toEqual([]);
});
