import { builtinModules, createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { compiled, packageRoot } from "../shared/package-layout.js";
import { Project, ts } from "./compiler.js";
import { mentionsNodeGlobal } from "./node-globals.js";

/**
 * Compiler options for reflecting over tools, wherever the tools folder is (it need not be under any
 * tsconfig). Tuned for speed: only the ES2022 library (the default one drags in the DOM typings), no
 * automatic `@types` loading, no checking of `.d.ts` files. Bundler resolution accepts `./types`,
 * `./types.js` and `./types.ts`, as tsx does. The library is the compiler's own: TypeScript would
 * otherwise look for a replacement package (`@typescript/lib-es2015/core`, …) for each of the library's
 * files in every `node_modules` above the current directory, 20–30 ms of a cold run.
 */
export function toolCompilerOptions(withNodeTypes: boolean): ts.CompilerOptions {
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
    ...(withNodeTypes ? { typeRoots: [nodeTypesRoot()] } : {}),
  };
}

/** A ts-morph project over the given tool files and every file they import. */
export function createToolProject(toolFiles: readonly string[], withNodeTypes: boolean): Project {
  const options = toolCompilerOptions(withNodeTypes);
  const project = new Project({ compilerOptions: options, skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
  for (const file of toolFiles) project.addSourceFileAtPath(file);
  project.resolveSourceFileDependencies();
  return project;
}

const builtins = new Set(builtinModules);

/**
 * Whether Node's typings are needed: some tool, or a local file it imports, imports a Node module or
 * names a Node global in its code. Loading them costs a large share of a small project's compile, so
 * they are only loaded when something uses them. This reads import lists without type checking.
 */
export function needsNodeTypes(toolFiles: readonly string[]): boolean {
  const options = toolCompilerOptions(false);
  const pending = [...toolFiles];
  const seen = new Set<string>();
  // Tool files share their imports (./types from every file): resolve each specifier once per folder.
  const resolutions = ts.createModuleResolutionCache(process.cwd(), (name) => name, options);
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    if (mentionsNodeGlobal(text)) return true;
    for (const imported of ts.preProcessFile(text, true, true).importedFiles) {
      const specifier = imported.fileName;
      if (specifier.startsWith("node:") || builtins.has(specifier)) return true;
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
