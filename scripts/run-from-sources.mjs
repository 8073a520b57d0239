// @ts-check
/**
 * Runs a TypeScript entry point of this repository with plain `node`, without a TypeScript loader: the
 * entry and the local modules it imports are bundled with esbuild into `node_modules/.cache/sigloop/`
 * and rebuilt only when one of them changes (size or modification time). Packages stay imports of their
 * own and load from node_modules as usual; `import.meta.url` keeps naming each module's own source file,
 * so paths computed from it (the package root, `createRequire`) are the same as under tsx. In the bundle
 * `__SIGLOOP_BUNDLED__` is `true` (it is undeclared anywhere else): a bundled entry that imports other
 * TypeScript files at run time (the agent's tool modules) knows that it must register a loader for them.
 *
 * Why: tsx starts a loader thread and routes every import through it, about 0.15 s of a cold
 * `npm run gen` (1.1 s at 500 tools) and 0.2 s of `npm run agent`'s start-up, which the baselines, plain
 * JavaScript, never pay. Measured in docs/gen.md and docs/tool-execution.md.
 *
 * If the bundle cannot be made (a source that does not parse, an unwritable cache), tsx runs the entry.
 * `--in-memory-with FLAG` (before the entry): when the entry's arguments hold FLAG, a stale bundle is made
 * in memory and imported as a data: URL, and nothing is written (gen's `--check` writes nothing, no cache
 * either). That suits entries whose only `import`s are Node's modules.
 *
 * Usage: node scripts/run-from-sources.mjs [--in-memory-with FLAG] <entry.ts> [arguments for the entry…]
 */
import { createHash } from "node:crypto";
import nodeModule from "node:module";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// Before anything that needs a newer Node than npm let install (npm only warns about "engines"): on Node
// 20 the entries would stop on a missing API with a stack trace. The bin says the same (src/bin/supported-node.ts).
const unsupported = unsupportedNode(JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).engines.node);
if (unsupported !== undefined) {
  process.stderr.write(`${unsupported}\n`);
  process.exit(2);
}
const cacheDir = path.join(root, "node_modules", ".cache", "sigloop");

/** @typedef {{ bundle: string, chunks?: string[], inputs: Record<string, string> }} Manifest */

const inMemoryWith = process.argv[2] === "--in-memory-with" ? process.argv[3] : undefined;
const launcherArgs = inMemoryWith === undefined ? 1 : 3;
const entry = path.resolve(process.argv[1 + launcherArgs] ?? "");
// The entry reads its own arguments from process.argv.slice(2), as it does when run directly.
process.argv.splice(2, launcherArgs);
const manifestFile = path.join(cacheDir, `sources-${hash(entry)}.json`);
const writesNothing = inMemoryWith !== undefined && process.argv.slice(2).includes(inMemoryWith);
const cached = freshBundle();
const url = cached === undefined ? await rebuild().catch(() => undefined) : pathToFileURL(cached).href;
if (url === undefined) {
  // A source that does not parse, or a cache that cannot be written: tsx runs the entry as it always
  // could, and reports a syntax error with its file and line.
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(entry).href);
} else {
  // As the installed bin does (src/shared/compile-cache.ts): a later run deserializes the packages'
  // compiled code. Not for a run that writes nothing.
  if (!writesNothing) nodeModule.enableCompileCache();
  await import(url);
}

/**
 * The sentence for a Node older than `engines` (`>=22.19`), or `undefined` when this one will do.
 * @param {string} engines
 */
function unsupportedNode(engines) {
  const [needMajor = 0, needMinor = 0] = engines.replace(/^>=/, "").split(".").map(Number);
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `sigloop: Node ${process.versions.node} is not supported; this repository needs Node ${needMajor}.${needMinor} or later (22 or 24). Install one (for example \`nvm install 22\`) and run the command again.`;
}

/** The bundle named by the manifest, if every input it was built from is unchanged. */
function freshBundle() {
  /** @type {Manifest} */
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
  } catch {
    return undefined;
  }
  for (const [file, stamp] of Object.entries(manifest.inputs)) if (stampOf(file) !== stamp) return undefined;
  // A cache folder cleaned by hand can hold the manifest without its bundle or its chunks.
  if ([manifest.bundle, ...(manifest.chunks ?? [])].some((file) => stampOf(file) === "missing")) return undefined;
  return manifest.bundle;
}

/** Bundles the entry and returns the URL to import it from: the cached file, recorded with what it was built from. */
async function rebuild() {
  const { build } = await import("esbuild");
  /** @type {import("esbuild").Plugin} */
  const ownUrls = {
    name: "own-import-meta-url",
    setup(builder) {
      builder.onLoad({ filter: /\.ts$/ }, (args) => ({
        contents: readFileSync(args.path, "utf8").replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
        loader: "ts",
      }));
    },
  };
  // Split into chunks, so that a package a lazily imported module needs loads with that module, not with
  // every run (a single-file bundle hoists every package import to its top: the provider SDKs and the
  // MCP SDK, about 0.2 s each). An in-memory bundle is one data: URL, so it cannot be split.
  const outdir = path.join(cacheDir, `sources-${hash(entry)}`);
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    splitting: !writesNothing,
    outdir,
    // Named by content, so a run never imports a file another run is replacing.
    entryNames: "[name]-[hash]",
    chunkNames: "chunk-[hash]",
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node22",
    write: false,
    metafile: true,
    logLevel: "silent",
    define: { __SIGLOOP_BUNDLED__: "true" },
    plugins: [ownUrls],
  });
  // The launcher itself is an input too: how it bundles is part of what a bundle is.
  const files = [fileURLToPath(import.meta.url), ...Object.keys(result.metafile.inputs).map((file) => path.resolve(root, file))];
  const inputs = Object.fromEntries(files.map((file) => [file, stampOf(file)]));
  const entryOutput = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint !== undefined)?.[0];
  const entryFile = entryOutput === undefined ? undefined : path.resolve(root, entryOutput);
  const bundleOutput = result.outputFiles.find((output) => output.path === entryFile);
  if (bundleOutput === undefined) throw new Error("esbuild wrote no entry file");
  // Its only imports are Node's own modules (packages are loaded with createRequire), so it runs as data.
  if (writesNothing) return `data:text/javascript;base64,${Buffer.from(bundleOutput.text).toString("base64")}`;
  mkdirSync(outdir, { recursive: true });
  const written = result.outputFiles.map((output) => output.path);
  for (const output of result.outputFiles) writeAtomically(output.path, output.text);
  writeAtomically(manifestFile, JSON.stringify({ bundle: bundleOutput.path, chunks: written.filter((file) => file !== bundleOutput.path), inputs }));
  // Files of earlier sources, once no run can still be about to import them.
  for (const name of readdirSync(outdir)) {
    const file = path.join(outdir, name);
    if (!written.includes(file) && Date.now() - stampTime(file) > 10 * 60_000) rmSync(file, { force: true });
  }
  return pathToFileURL(bundleOutput.path).href;
}

/** @param {string} file */
function stampOf(file) {
  try {
    const { size, mtimeMs } = statSync(file);
    return `${size}:${mtimeMs}`;
  } catch {
    return "missing";
  }
}

/** @param {string} file */
function stampTime(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return Date.now();
  }
}

/** @param {string} file @param {string} text */
function writeAtomically(file, text) {
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, text);
  renameSync(partial, file);
}

/** @param {string} text */
function hash(text) {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
