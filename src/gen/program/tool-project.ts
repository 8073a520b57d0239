import { builtinModules, createRequire } from "node:module";
import path from "node:path";
import { compiled, packageRoot } from "../../shared/package-layout.js";
import { ts } from "./compiler.js";
import { importedModules } from "./imported-modules.js";
import { mentionsNodeGlobal } from "./node-globals.js";
import type { ToolHost } from "./tool-host.js";

/**
 * Compiler options for reflecting over tools, wherever the tools folder is (it need not be under any
 * tsconfig). Tuned for speed: only the ES2022 library (the default one drags in the DOM typings), no
 * automatic `@types` loading, no checking of `.d.ts` files. Bundler resolution accepts `./types`,
 * `./types.js` and `./types.ts`, as tsx does. The library is the compiler's own: TypeScript would
 * otherwise look for a replacement package (`@typescript/lib-es2015/core`, …) for each of the library's
 * files in every `node_modules` above the current directory, 20–30 ms of a cold run. `nodeTypesRootAt`:
 * where Node's typings are, when not the installed ones (a subset of them, `typings-cache.ts`).
 */
export function toolCompilerOptions(withNodeTypes: boolean, nodeTypesRootAt?: string): ts.CompilerOptions {
  return {
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    moduleDetection: ts.ModuleDetectionKind.Force,
    allowImportingTsExtensions: true,
    resolveJsonModule: true,
    esModuleInterop: true,
    strict: true,
    skipLibCheck: true,
    libReplacement: false,
    noEmit: true,
    types: withNodeTypes ? ["node"] : [],
    // Our own @types, so tools outside this project still find Node's typings.
    ...(withNodeTypes ? { typeRoots: [nodeTypesRootAt ?? nodeTypesRoot()] } : {}),
  };
}

const builtins = new Set(builtinModules);

/**
 * Whether Node's typings are needed: some tool, or a local file it imports, imports a Node module or
 * names a Node global in its code. Loading them costs a large share of a small project's compile, so
 * they are only loaded when something uses them. Decided from the files' syntax trees, which the
 * Program then reuses (`host`), before any type checking.
 */
export function needsNodeTypes(toolFiles: readonly string[], host: ToolHost): boolean {
  const options = toolCompilerOptions(false);
  const pending = [...toolFiles];
  const seen = new Set<string>();
  // Tool files share their imports (./types from every file): resolve each specifier once per folder.
  const resolutions = ts.createModuleResolutionCache(process.cwd(), (name) => name, options);
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const sourceFile = host.sourceFile(file);
    if (sourceFile === undefined) continue;
    const specifiers = importedModules(sourceFile);
    if (specifiers.some((specifier) => specifier.startsWith("node:") || builtins.has(specifier))) return true;
    if (mentionsNodeGlobal(sourceFile)) return true;
    for (const specifier of specifiers) {
      const resolved = ts.resolveModuleName(specifier, file, options, ts.sys, resolutions).resolvedModule;
      if (resolved !== undefined && !resolved.isExternalLibraryImport && !resolved.resolvedFileName.endsWith(".d.ts")) pending.push(resolved.resolvedFileName);
    }
  }
  return false;
}

function nodeTypesRoot(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(path.dirname(require.resolve("@types/node/package.json")));
}

/** Source files that are ours to check and hash: not the standard library, not under node_modules. */
export function isLocalSourceFile(fileName: string, program: ts.Program): boolean {
  const sourceFile = program.getSourceFile(fileName);
  if (sourceFile === undefined) return false;
  return !program.isSourceFileDefaultLibrary(sourceFile) && !program.isSourceFileFromExternalLibrary(sourceFile) && !fileName.includes("/node_modules/");
}

/**
 * The installed sigloop's own files that the tools were built from (the declarations of `sigloop` and
 * `sigloop/tools` they import, and its package.json for the version), hashed with the local sources so that
 * upgrading sigloop makes the schemas stale. None when running from this repository's sources, where those
 * files are local sources already.
 */
export function sigloopPackageFiles(program: ts.Program): string[] {
  if (!compiled) return [];
  const dist = path.join(packageRoot, "dist") + path.sep;
  const files = program.getSourceFiles().map((file) => path.resolve(file.fileName)).filter((file) => file.startsWith(dist));
  return files.length === 0 ? [] : [...files, path.join(packageRoot, "package.json")];
}
