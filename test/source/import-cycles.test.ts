/**
 * No module of src/ imports itself through others: each folder reads top-down, from its entry to its
 * leaves, and a change to a leaf cannot reach back into what uses it.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { importGraph, repoRoot } from "./import-graph.js";

/** Every circle of imports in `graph`, each as the files along it, shown relative to the repository. */
function importCycles(graph: ReadonlyMap<string, { modules: readonly string[] }>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file)?.modules ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].map((f) => path.relative(repoRoot, f)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}

it("no module of src/ imports itself through others", () => {
  const sources = readdirSync(path.join(repoRoot, "src"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => path.join(repoRoot, "src", name));
  const graph = importGraph(sources);
  expect(graph.size).toBeGreaterThanOrEqual(sources.length);
  expect(importCycles(graph)).toEqual([]);
});

it("a circle of imports is found, type-only imports included", () => {
  const a = path.join(repoRoot, "a.ts");
  const b = path.join(repoRoot, "b.ts");
  const c = path.join(repoRoot, "c.ts");
  const graph = new Map([[a, { modules: [b] }], [b, { modules: [c] }], [c, { modules: [a] }]]);
  expect(importCycles(graph)).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
});
