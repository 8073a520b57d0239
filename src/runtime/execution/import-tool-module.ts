/**
 * Imports a tool module by file URL. Tool files are TypeScript. Run from this repository's sources by tsx
 * or vitest, a TypeScript loader is already in place and a plain `import()` does. Run as plain JavaScript
 * (the installed `sigloop` bin, a program using the library, or `npm run agent`, whose sources are
 * bundled), the tool files are compiled to JavaScript first (`compiled-tool-modules.ts`), all of a
 * schemas file's at once; where they cannot be, the first TypeScript module imported registers tsx's
 * loaders, for ES modules and CommonJS alike. Either way the user installs nothing besides sigloop, and a
 * tool and the files it imports load once, in the same module graph as the rest of the program.
 */
import { fileURLToPath } from "node:url";
import { typeScriptNeedsLoader } from "../../shared/package-layout.js";
import { compileToolModules, type CompiledToolModules } from "./compiled-tool-modules.js";

const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;

let commonJsHooks: Promise<void> | undefined;
let esModuleLoader: Promise<void> | undefined;
const compilations = new Map<string, Promise<CompiledToolModules | undefined>>();

/**
 * `url` may carry a query (a fresh instance of the module); `toolFiles` are the URLs of every tool file
 * of the same schemas file, compiled together so that the modules they share stay one instance.
 */
export async function importToolModule(url: string, toolFiles: readonly string[] = [url]): Promise<unknown> {
  const location = new URL(url);
  if (!typeScriptNeedsLoader || !TYPESCRIPT_FILE.test(location.pathname)) return import(url);
  const file = fileURLToPath(withoutQuery(url));
  const compilation = await compilationOf(toolFiles, location.search);
  const compiled = compilation?.modules.get(file);
  if (compiled !== undefined) {
    if (compilation?.commonJsLoader === true) await registerLoaders("commonjs");
    return import(`${compiled}${location.search}`);
  }
  await registerLoaders("both");
  return import(url);
}

/**
 * One compilation per set of tool files, shared by their imports; an import with a query of its own (the
 * MCP server's reload after an edit) looks at the files again.
 */
function compilationOf(toolFiles: readonly string[], query: string): Promise<CompiledToolModules | undefined> {
  const files = [...new Set(toolFiles.map((toolFile) => fileURLToPath(withoutQuery(toolFile))))].sort();
  const key = `${query}\n${files.join("\n")}`;
  let compilation = compilations.get(key);
  if (compilation === undefined) {
    compilation = compileToolModules(files);
    compilations.set(key, compilation);
  }
  return compilation;
}

function withoutQuery(url: string): URL {
  const location = new URL(url);
  location.search = "";
  location.hash = "";
  return location;
}

/** tsx's loaders, each registered once per process: its CommonJS hooks alone, or with its ES module loader. */
async function registerLoaders(which: "commonjs" | "both"): Promise<void> {
  commonJsHooks ??= withSourceMapsKept(async () => (await import("tsx/cjs/api")).register());
  if (which === "both") esModuleLoader ??= withSourceMapsKept(async () => (await import("tsx/esm/api")).register());
  await Promise.all([commonJsHooks, esModuleLoader]);
}

/**
 * tsx turns Node's source maps on, for stack traces that point into .ts files. sigloop never shows a
 * stack trace, and with maps on Node reads the map file of every module loaded later (Ajv ships one per
 * file, which makes its load about a fifth dearer): the process keeps the setting it had.
 */
async function withSourceMapsKept(register: () => Promise<unknown>): Promise<void> {
  const sourceMaps = process.sourceMapsEnabled;
  await register();
  process.setSourceMapsEnabled(sourceMaps);
}
