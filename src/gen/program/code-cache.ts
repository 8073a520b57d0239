import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from "node:fs";
import { createRequire, Module } from "node:module";
import path from "node:path";
import { Script } from "node:vm";
import { writeCacheFile } from "./cache-file.js";

/** Scripts compiled without a usable cache; their code cache is written when the process exits. */
const unsaved: { script: Script; cacheFile: string }[] = [];
let writesAllowed = true;

/** This process reads caches but writes none (`gen --check` writes nothing, not even a cache). */
export function leaveCodeCacheUnwritten(): void {
  writesAllowed = false;
}

/** Whether this process may write its caches (see `leaveCodeCacheUnwritten`). */
export function cacheWritesAllowed(): boolean {
  return writesAllowed;
}

/**
 * `require` of one CommonJS file, compiled through a V8 code cache kept in `node_modules/.cache/sigloop/`.
 * The TypeScript compiler is 9 MB of JavaScript: compiling it, and then each of its functions the first
 * time a run calls it, is a fixed share of every cold `gen` (~0.3 s of 2–3 s at 500 tools). The cache is
 * written at the end of the first run, so it holds the functions that run needed; later runs deserialize
 * them instead. (Node 22's `module.enableCompileCache` does this; Node 20 has no such switch.)
 *
 * The cache is keyed by the file's path, size and modification time and by the Node version, and V8
 * refuses a cache from another V8 or other flags; a refused, missing or unwritable cache only costs speed.
 * Each Node version keeps its own, so switching between Node lines in one project compiles nothing again.
 */
export function requireWithCodeCache(file: string): unknown {
  const require = createRequire(file);
  const loaded = require.cache[file];
  if (loaded !== undefined) return loaded.exports;
  const cacheFile = cacheFileFor(file, "v8");
  const cachedData = cacheFile === undefined ? undefined : readOptional(cacheFile);
  const script = new Script(readWrappedSource(file), { filename: file, ...(cachedData === undefined ? {} : { cachedData }) });
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
    if (unsaved.length === 0) process.once("exit", writeCaches);
    unsaved.push({ script, cacheFile });
  }
  const module = new Module(file);
  module.filename = file;
  require.cache[file] = module;
  try {
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, require, module, file, path.dirname(file));
  } catch (error) {
    delete require.cache[file];
    throw error;
  }
  module.loaded = true;
  return module.exports;
}

/**
 * The file's text inside CommonJS's function wrapper (`Module.wrap`), read into one buffer and decoded
 * once. The compiler's 9 MB are plain ASCII, which reads as Latin-1 without UTF-8 decoding: 2–10 ms
 * instead of 20–24 ms per cold run; any other byte and it is decoded as UTF-8. Wrapping the decoded text
 * (`Module.wrap(text)`) would make a string of two parts that V8 copies into a third, flat one before
 * it looks the script up: 9 MB more to copy and fault in on every cold run.
 */
function readWrappedSource(file: string): string {
  const [head, tail] = Module.wrap("\0").split("\0") as [string, string];
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const bytes = Buffer.allocUnsafe(head.length + size + tail.length);
    bytes.write(head, 0, "latin1");
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, head.length + read, size - read, null);
      if (n === 0) break;
      read += n;
    }
    const end = bytes.write(tail, head.length + read, "latin1") + head.length + read;
    const wrapped = bytes.subarray(0, end);
    return wrapped.toString(isAscii(wrapped) ? "latin1" : "utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * Where something made from an installed file is kept: `node_modules/.cache/sigloop/`, named for the
 * file's path, size, modification time and the Node version. None for a file outside `node_modules`.
 */
export function cacheFileFor(file: string, extension: string): string | undefined {
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = file.indexOf(marker);
  if (at < 0) return undefined;
  const { size, mtimeMs } = statSync(file);
  const key = [file, size, mtimeMs, process.version, process.arch].join("\0");
  // The Node version is spelled out, so that a run on one Node line removes only its own stale caches.
  return path.join(file.slice(0, at + marker.length), ".cache", "sigloop", `${path.basename(file)}-${hash(file)}-${process.version}-${process.arch}-${hash(key)}.${extension}`);
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

function readOptional(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function writeCaches(): void {
  if (!writesAllowed) return;
  for (const { script, cacheFile } of unsaved.splice(0)) {
    try {
      const dir = path.dirname(cacheFile);
      // Caches of older versions of the same file are dead weight; another Node's cache of it is not.
      const samePath = path.basename(cacheFile).replace(/-[0-9a-f]+\.v8$/, "-");
      for (const old of readdirSync(dir)) if (old.startsWith(samePath) && old.endsWith(".v8")) rmSync(path.join(dir, old), { force: true });
    } catch {
      // No folder yet (the write below makes it), or a read-only one (the write fails quietly as well).
    }
    writeCacheFile(cacheFile, script.createCachedData());
  }
}
