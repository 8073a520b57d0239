/**
 * TypeScript tool files compiled to plain ES modules ahead of their import, so that a process running
 * JavaScript (the installed bin, `npm run agent`'s bundled sources) imports its tools without a
 * TypeScript loader. Registering tsx's loader starts a thread that loads tsx again and routes every later
 * import through it (about 0.14 s before `npm run agent`'s first request), and Node joins that thread on
 * exit. Measured in docs/tool-execution.md.
 *
 * All tool files of a schemas file are bundled together by esbuild, the local ES modules they import
 * (TypeScript or JavaScript) included, into `node_modules/.cache/sigloop/` of the tools' project; a module
 * two tool files import becomes a shared chunk, so it is one instance as under a loader. Packages (bare
 * imports, `sigloop` among them) and local CommonJS files stay imports of their own, so they load from
 * where they are as before: the cache folder lies under the same `node_modules` the tool files resolve
 * packages from. `import.meta.url` (`dirname`,
 * `filename`) keeps naming each module's source file. The bundle is made again only when one of the
 * files it was made from changes (size or modification time).
 *
 * Where that would change what a tool sees, nothing is compiled and the caller falls back to a loader:
 * a TypeScript file Node runs as CommonJS (`.cts`, or `.ts` outside a `"type": "module"` package, where
 * `__dirname` and `require` exist), a module that resolves packages from another `node_modules` than the
 * cache folder, an `import()` of a computed path or `import.meta.resolve` (they would resolve from the
 * cache folder), a file esbuild cannot parse (the loader then reports it as before), no `node_modules`
 * above the tools, or a cache that cannot be written.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface CompiledToolModules {
  /** For each compiled tool file (an absolute path), the file URL of its module. */
  modules: ReadonlyMap<string, string>;
  /**
   * The tools import local CommonJS files, which may `require` TypeScript: tsx's CommonJS hooks (no
   * thread of their own) must be registered first, as they were when tsx loaded the tools.
   */
  commonJsLoader: boolean;
}

interface Manifest {
  /** Every file the bundle was made from, with its stamp. */
  inputs: Record<string, string>;
  /** Tool file → compiled module (absolute paths). */
  modules: Record<string, string>;
  commonJsLoader: boolean;
}

const TYPESCRIPT_FILE = /\.[cm]?tsx?$/;
/** A file with code of its own (JSON is data): TypeScript or JavaScript. */
const MODULE_SOURCE = /\.[cm]?[jt]sx?$/;
const STALE_BUNDLE_AGE_MS = 10 * 60_000;
/** This module's own file: how bundles are made is part of what a bundle is. */
const thisFile = fileURLToPath(import.meta.url);

/**
 * Compiles the ES-module TypeScript files among `toolFiles` (absolute paths), or reuses their bundle from
 * the cache. Returns `undefined` when a loader must import them instead (see the module's contract).
 */
export async function compileToolModules(toolFiles: readonly string[]): Promise<CompiledToolModules | undefined> {
  const entries = [...new Set(toolFiles)].filter((file) => TYPESCRIPT_FILE.test(file) && moduleKind(file) === "module").sort();
  if (entries.length === 0) return undefined;
  const nodeModules = nodeModulesAbove(path.dirname(entries[0]!));
  if (nodeModules === undefined || entries.some((file) => nodeModulesAbove(path.dirname(file)) !== nodeModules)) return undefined;
  const cacheDir = path.join(nodeModules, ".cache", "sigloop");
  const key = `tools-${hash(entries.join("\n"))}`;
  const manifestFile = path.join(cacheDir, `${key}.json`);
  const cached = freshManifest(manifestFile);
  try {
    const manifest = cached ?? (await bundle(entries, nodeModules, cacheDir, key, manifestFile));
    if (manifest === undefined || Object.keys(manifest.modules).length === 0) return undefined;
    const modules = new Map(Object.entries(manifest.modules).map(([file, module]) => [file, pathToFileURL(module).href]));
    return { modules, commonJsLoader: manifest.commonJsLoader };
  } catch {
    // esbuild missing, a file that does not parse, a cache that cannot be written: the loader takes over.
    return undefined;
  }
}

function freshManifest(file: string): Manifest | undefined {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(file, "utf8")) as Manifest;
  } catch {
    return undefined;
  }
  for (const [input, stamp] of Object.entries(manifest.inputs)) if (stampOf(input) !== stamp) return undefined;
  // A cache folder cleaned by hand can hold the manifest without its modules.
  return Object.values(manifest.modules).every((module) => existsSync(module)) ? manifest : undefined;
}

/** Bundles the tools, or records that they must not be compiled (a manifest without modules). */
async function bundle(entries: string[], nodeModules: string, cacheDir: string, key: string, manifestFile: string): Promise<Manifest> {
  const { build } = await import("esbuild");
  let commonJsLoader = false;
  let resolvesAtRunTime = false;
  // esbuild names inputs and outputs relative to this folder.
  const base = path.dirname(nodeModules);
  const result = await build({
    absWorkingDir: base,
    entryPoints: entries,
    bundle: true,
    splitting: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    outdir: cacheDir,
    outExtension: { ".js": ".mjs" },
    entryNames: "[name]-[hash]",
    chunkNames: "shared-[hash]",
    write: false,
    metafile: true,
    logLevel: "silent",
    plugins: [
      {
        name: "sigloop-tool-sources",
        setup(builder) {
          // A local CommonJS JavaScript file is imported from where it is: Node loads it as before,
          // `require`, `__dirname` and all. Everything else local is bundled (TypeScript that Node would
          // run as CommonJS is then refused below).
          builder.onResolve({ filter: /^\.{0,2}\// }, async (args) => {
            if (args.pluginData === "resolving") return undefined;
            const resolved = await builder.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: "resolving" });
            const commonJs = MODULE_SOURCE.test(resolved.path) && !TYPESCRIPT_FILE.test(resolved.path) && moduleKind(resolved.path) === "commonjs";
            if (resolved.errors.length > 0 || resolved.external || !commonJs) return undefined;
            commonJsLoader = true;
            return { path: pathToFileURL(resolved.path).href, external: true };
          });
          builder.onLoad({ filter: MODULE_SOURCE }, (args) => {
            const source = readFileSync(args.path, "utf8");
            if (RUN_TIME_RESOLUTION.test(source)) resolvesAtRunTime = true;
            return { contents: withOwnLocation(source, args.path), loader: loaderFor(args.path) };
          });
        },
      },
    ],
  });
  const sources = Object.keys(result.metafile.inputs).map((input) => path.resolve(base, input));
  const code = sources.filter((file) => MODULE_SOURCE.test(file));
  // What decides how a file compiles besides its text: its package's module type, its tsconfig (paths,
  // JSX, decorators).
  const settings = code.flatMap((file) => [nearestFile(path.dirname(file), "package.json"), nearestFile(path.dirname(file), "tsconfig.json")]);
  const files = [...new Set([thisFile, ...sources, ...settings.filter((file) => file !== undefined)])];
  const inputs = Object.fromEntries(files.map((file) => [file, stampOf(file)]));
  // Compiled as an ES module, a file Node would run as CommonJS would lose `__dirname` and `require`; one
  // that resolves packages from a nearer `node_modules` would not find them from the cache folder; a path
  // worked out at run time would be resolved from the cache folder. The refusal is kept like a bundle, so
  // that later runs go to the loader without building again until a file changes.
  const refused = resolvesAtRunTime || code.some((file) => moduleKind(file) !== "module" || nodeModulesAbove(path.dirname(file)) !== nodeModules);
  if (refused) return written(manifestFile, { inputs, modules: {}, commonJsLoader: false });

  // Named by content, so a run never imports modules another run is replacing, and by the files' names:
  // esbuild can name the same text anew (code no tool uses, added before code one uses), and a folder of
  // the same text under the old names would then lack the files the manifest names.
  const outputs = result.outputFiles;
  const folder = path.join(cacheDir, `${key}-${hash(outputs.map((output) => `${path.basename(output.path)}:${output.hash}`).join("\n"))}`);
  if (!existsSync(folder)) {
    const partial = `${folder}.${process.pid}.tmp`;
    mkdirSync(partial, { recursive: true });
    for (const output of outputs) writeFileSync(path.join(partial, path.basename(output.path)), output.contents);
    try {
      renameSync(partial, folder);
    } catch (error) {
      // Another run wrote the same modules first.
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(folder)) throw error;
    }
  }
  const modules: Record<string, string> = {};
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    if (meta.entryPoint !== undefined) modules[path.resolve(base, meta.entryPoint)] = path.join(folder, path.basename(output));
  }
  removeStaleBundles(cacheDir, key, folder);
  return written(manifestFile, { inputs, modules, commonJsLoader });
}

function written(manifestFile: string, manifest: Manifest): Manifest {
  mkdirSync(path.dirname(manifestFile), { recursive: true });
  const partial = `${manifestFile}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(manifest));
  renameSync(partial, manifestFile);
  return manifest;
}

/** Bundles of earlier sources, once no run can still be about to import them. */
function removeStaleBundles(cacheDir: string, key: string, current: string): void {
  for (const name of readdirSync(cacheDir)) {
    const folder = path.join(cacheDir, name);
    if (name.startsWith(`${key}-`) && folder !== current && Date.now() - modifiedAt(folder) > STALE_BUNDLE_AGE_MS) rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Module resolution left to run time: an `import()` of anything but a literal (esbuild bundles a literal,
 * and a template's files by their pattern), or `import.meta.resolve`. Comments and strings count too,
 * which at worst sends a tool to the loader.
 */
const RUN_TIME_RESOLUTION = /\bimport\s*\(\s*[^\s"'`]|\bimport\.meta\.resolve\b/;
const IMPORT_META_LOCATION = /\bimport\.meta\.(url|dirname|filename)\b/g;

function loaderFor(file: string): "ts" | "tsx" | "js" | "jsx" {
  const typeScript = TYPESCRIPT_FILE.test(file);
  if (file.endsWith("x")) return typeScript ? "tsx" : "jsx";
  return typeScript ? "ts" : "js";
}

function withOwnLocation(source: string, file: string): string {
  const location = { url: pathToFileURL(file).href, dirname: path.dirname(file), filename: file };
  return source.replace(IMPORT_META_LOCATION, (_, name: keyof typeof location) => JSON.stringify(location[name]));
}

/** How Node runs a TypeScript file once its types are stripped: by extension, then by its package's `type`. */
function moduleKind(file: string): "module" | "commonjs" {
  if (/\.m[jt]sx?$/.test(file)) return "module";
  if (/\.c[jt]sx?$/.test(file)) return "commonjs";
  const packageFile = nearestFile(path.dirname(file), "package.json");
  if (packageFile === undefined) return "commonjs";
  try {
    return (JSON.parse(readFileSync(packageFile, "utf8")) as { type?: unknown }).type === "module" ? "module" : "commonjs";
  } catch {
    return "commonjs";
  }
}

/** The nearest `name` (package.json, tsconfig.json) in `dir` or above, within its package as Node looks. */
function nearestFile(dir: string, name: string): string | undefined {
  for (let current = dir; ; current = path.dirname(current)) {
    if (path.basename(current) === "node_modules") return undefined;
    const file = path.join(current, name);
    if (existsSync(file)) return file;
    if (path.dirname(current) === current) return undefined;
  }
}

/** The nearest `node_modules` folder Node would resolve a package from, starting at `dir`. */
function nodeModulesAbove(dir: string): string | undefined {
  for (let current = dir; ; current = path.dirname(current)) {
    const candidate = path.join(current, "node_modules");
    if (path.basename(current) !== "node_modules" && existsSync(candidate)) return candidate;
    if (path.dirname(current) === current) return undefined;
  }
}

function stampOf(file: string): string {
  try {
    const { size, mtimeMs } = statSync(file);
    return `${size}:${mtimeMs}`;
  } catch {
    return "missing";
  }
}

function modifiedAt(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return Date.now();
  }
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
