import { createRequire, Module } from "node:module";
import path from "node:path";
import { ts } from "./compiler.js";
import type * as Tsjs from "typescript-json-schema";

const require = createRequire(import.meta.url);

/**
 * Loads typescript-json-schema so that its `require("typescript")` gets the compiler ts-morph bundles.
 * Both are TypeScript 5.9, so one Program serves discovery and schemas either way; handing over the very
 * same module also saves loading and compiling a second 9 MB copy of the compiler on every cold run.
 * If the minor versions ever differ, the library keeps its own copy.
 *
 * Its `require("glob")` gets a stand-in: only its command line finds files, never the generator gen
 * drives, and loading glob (with lru-cache, minipass, …) took ~8 ms of a cold run.
 */
export function loadTypescriptJsonSchema(): typeof Tsjs {
  const entry = require.resolve("typescript-json-schema");
  const typescriptEntry = require.resolve("typescript", { paths: [path.dirname(entry)] });
  const installed = (require(path.join(path.dirname(typescriptEntry), "..", "package.json")) as { version: string }).version;
  if (installed.startsWith(`${ts.versionMajorMinor}.`)) provide(typescriptEntry, ts);
  provide(require.resolve("glob", { paths: [path.dirname(entry)] }), {
    sync: () => {
      throw new Error("gen does not find files through typescript-json-schema");
    },
  });
  return require("typescript-json-schema") as typeof Tsjs;
}

/** Makes `exports` what `require` of `file` returns, unless the file is loaded already. */
function provide(file: string, exports: unknown): void {
  if (require.cache[file] !== undefined) return;
  const module = new Module(file);
  module.filename = file;
  module.exports = exports;
  module.loaded = true;
  require.cache[file] = module;
}
