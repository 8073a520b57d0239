import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { writeCacheFile } from "./cache-file.js";
import { cacheFileFor, cacheWritesAllowed, requireWithCodeCache } from "./code-cache.js";

/**
 * The library's declaration files (`lib.es2022.d.ts` and what it references) as ts-morph ships them,
 * comments stripped: what gen has always compiled tools against, so schemas and messages stay the same.
 *
 * They sit in @ts-morph/common's 2.5 MB bundle, and loading it (with minimatch and tinyglobby, which
 * gen does not use) took ~25 ms of a cold run. So the ES files (135 KB) and the names of all of them
 * are kept in `node_modules/.cache/sigloop/`, keyed by the bundle's path, size and modification time
 * and written by the first run that needs them (not by `gen --check`, which writes nothing); a file not
 * kept (a tool's `/// <reference lib="dom" />`) loads the bundle.
 */
export interface LibFiles {
  /** Every library file's name (`lib.es5.d.ts`, …). */
  names: ReadonlySet<string>;
  /** The text of one, by name. */
  text(name: string): string | undefined;
}

interface Kept {
  names: string[];
  texts: Record<string, string>;
}

const require = createRequire(import.meta.url);
const commonEntry = createRequire(require.resolve("ts-morph")).resolve("@ts-morph/common");
/** What gen's ES2022 library can reach; the DOM's and workers' typings are most of the 2.5 MB. */
const KEPT = /^lib\.(es\d{4}|es5|esnext|decorators)[.a-z0-9]*\.d\.ts$/;

/** The library files of `bundle` (@ts-morph/common's, or one exporting `getLibFiles` as it does). */
export function loadLibFiles(bundle = commonEntry): LibFiles {
  let loaded: Map<string, string> | undefined;
  const allFiles = () => {
    const common = requireWithCodeCache(bundle) as { getLibFiles(): { fileName: string; text: string }[] };
    loaded ??= new Map(common.getLibFiles().map((file) => [file.fileName, file.text]));
    return loaded;
  };
  const cacheFile = cacheFileFor(bundle, "lib.json");
  const kept = cacheFile === undefined ? undefined : readKept(cacheFile);
  if (kept !== undefined) {
    const texts = new Map(Object.entries(kept.texts));
    return { names: new Set(kept.names), text: (name) => texts.get(name) ?? allFiles().get(name) };
  }
  const all = allFiles();
  if (cacheFile !== undefined && cacheWritesAllowed()) writeKept(cacheFile, all);
  return { names: new Set(all.keys()), text: (name) => all.get(name) };
}

function readKept(file: string): Kept | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Kept;
  } catch {
    return undefined;
  }
}

function writeKept(file: string, all: ReadonlyMap<string, string>): void {
  const kept: Kept = { names: [...all.keys()], texts: Object.fromEntries([...all].filter(([name]) => KEPT.test(name))) };
  writeCacheFile(file, JSON.stringify(kept));
}
