import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { cacheWritesAllowed } from "./code-cache.js";
import { ts } from "./compiler.js";
import type { TypingsSeeds } from "./typings-seeds.js";
import type { TypingsSubset } from "./typings-subset.js";

/**
 * The subset of Node's typings a tools folder reaches (`typings-subset.ts`), kept in
 * `node_modules/.cache/sigloop/node-typings/` beside the typings themselves: one per tools folder, keyed by
 * the compiler's version and the exact `@types/node` and `undici-types` (their package.json files). A
 * later run uses it only when its own files' seeds are ones the subset was made for; otherwise, or when
 * the cache is missing, unreadable or from other typings, the run compiles against the whole typings and
 * writes the subset for next time (not `gen --check`, which writes nothing). A cache only ever costs
 * speed: the schemas and messages are the same either way.
 */
export interface CachedTypings {
  /** The folder to pass as `typeRoots`. */
  typeRoot: string;
  /** Whether the subset holds everything these seeds can reach. */
  covers(seeds: TypingsSeeds): boolean;
}

/** Bumped whenever the subset's making changes, so a cache written by another sigloop is not used. */
const FORMAT = 1;

interface Manifest {
  key: string;
  covers: TypingsSubset["covers"];
  nodeNames: string[];
}

const require = createRequire(import.meta.url);

/** The folder holding `@types` (and, beside it, normally `undici-types`). */
export function typingsPackagesRoot(): string {
  return path.dirname(path.dirname(path.dirname(require.resolve("@types/node/package.json"))));
}

function versionsKey(): string {
  const nodeTypes = require.resolve("@types/node/package.json");
  const undici = createRequire(nodeTypes).resolve("undici-types/package.json");
  return createHash("sha256").update([FORMAT, ts.version, readFileSync(nodeTypes, "utf8"), readFileSync(undici, "utf8")].join("\0")).digest("hex");
}

/** Where the subset for a tools folder is kept. */
export function typingsCacheDir(toolsDir: string): string {
  return path.join(typingsPackagesRoot(), ".cache", "sigloop", "node-typings", toolsFolderKey(toolsDir));
}

/** What names a tools folder's caches: a hash of its absolute path. */
export function toolsFolderKey(toolsDir: string): string {
  return createHash("sha256").update(path.resolve(toolsDir)).digest("hex").slice(0, 16);
}

export function cachedTypings(toolsDir: string): CachedTypings | undefined {
  const dir = typingsCacheDir(toolsDir);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, "subset.json"), "utf8")) as Manifest;
    if (manifest.key !== versionsKey()) return undefined;
  } catch {
    return undefined;
  }
  const modules = new Set(manifest.covers.modules);
  const names = new Set(manifest.covers.names);
  const moduleNames = new Set(manifest.covers.moduleNames);
  const nodeNames = new Set(manifest.nodeNames);
  return {
    typeRoot: path.join(dir, "node_modules", "@types"),
    covers: (seeds) =>
      seeds.complete &&
      seeds.modules.every((seed) => modules.has(seed) || modules.has(seed.split("#")[0]!)) &&
      [...seeds.names].every((name) => !nodeNames.has(name) || names.has(name)) &&
      [...seeds.moduleNames].every((name) => moduleNames.has(name)),
  };
}

/** Writes the subset for the next run; a failure (read-only node_modules, a full disk) only costs that run's speed. */
export function saveTypings(toolsDir: string, subset: TypingsSubset): void {
  if (!cacheWritesAllowed()) return;
  const dir = typingsCacheDir(toolsDir);
  // Written aside and renamed, so a concurrent run never reads half a subset.
  const partial = `${dir}.${process.pid}.tmp`;
  try {
    rmSync(partial, { recursive: true, force: true });
    const packagesRoot = typingsPackagesRoot();
    const nodeTypes = require.resolve("@types/node/package.json");
    const undici = createRequire(nodeTypes).resolve("undici-types/package.json");
    const files = new Map(subset.files);
    for (const packageJson of [nodeTypes, undici]) files.set(path.relative(packagesRoot, packageJson), readFileSync(packageJson, "utf8"));
    for (const [name, text] of files) {
      const file = path.join(partial, "node_modules", name);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    const manifest: Manifest = { key: versionsKey(), covers: subset.covers, nodeNames: subset.nodeNames };
    writeFileSync(path.join(partial, "subset.json"), JSON.stringify(manifest));
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  } catch {
    try {
      rmSync(partial, { recursive: true, force: true });
    } catch {
      // Left for the next write of this folder's subset, which starts by removing it.
    }
  }
}
