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
 */
export function loadTypescriptJsonSchema(): typeof Tsjs {
  const entry = require.resolve("typescript-json-schema");
  const typescriptEntry = require.resolve("typescript", { paths: [path.dirname(entry)] });
  const installed = (require(path.join(path.dirname(typescriptEntry), "..", "package.json")) as { version: string }).version;
  if (require.cache[typescriptEntry] === undefined && installed.startsWith(`${ts.versionMajorMinor}.`)) {
    const shared = new Module(typescriptEntry);
    shared.filename = typescriptEntry;
    shared.exports = ts;
    shared.loaded = true;
    require.cache[typescriptEntry] = shared;
  }
  return require("typescript-json-schema") as typeof Tsjs;
}
