import { existsSync, statSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";
import type { GenOptions } from "./cli-args.js";
import { formatDiagnostic, relativePath, type Diagnostic } from "../diagnostic.js";
import { countTools, type GenIo } from "./gen-io.js";
import type { Generation, ToolGenerator } from "../tool-generator.js";
import { MissingImports } from "./missing-imports.js";
import { writeSchemasOrExplain } from "./write-schemas.js";

export interface WatchHandle {
  close(): void;
}

/** Editors write a file in several steps; changes this close together are one regeneration. */
const SETTLE_MS = 40;

/**
 * `--watch`: generate once, then regenerate on every change to a tool file or a local file the tools
 * import, through the same warm generator. One stderr line per regeneration, after any errors. An import
 * that does not resolve keeps the places it could resolve to watched (`missing-imports.ts`), so creating
 * or restoring that file regenerates.
 */
export function watchTools(generator: ToolGenerator, options: GenOptions, io: GenIo): WatchHandle {
  const shownOut = relativePath(io.cwd, options.outFile);
  /** By folder, with the folder's identity: one deleted and made again needs a new watcher. */
  const watchers = new Map<string, { watcher: FSWatcher; identity: string | undefined }>();
  const missing = new MissingImports();
  /** The changed files (named in the line), the files importing a newly there file (read again), the deleted inputs. */
  let pending = new Set<string>();
  let importers = new Set<string>();
  let deletedInputs = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const publish = (generation: Generation, what: string, started: number, regenerated: boolean) => {
    for (const diagnostic of shownDiagnostics(generation.diagnostics, regenerated)) io.stderr(`${formatDiagnostic(diagnostic, io.cwd)}\n`);
    const ms = Math.round(performance.now() - started);
    if (generation.text === undefined) {
      const errors = generation.diagnostics.filter((d: Diagnostic) => d.severity === "error").length;
      io.stderr(`gen: ${what}: ${errors} error${errors === 1 ? "" : "s"}; ${shownOut} left as it was (${ms} ms)\n`);
      return;
    }
    const failure = writeSchemasOrExplain(options.outFile, generation.text, io.cwd);
    if (failure !== undefined) {
      io.stderr(`gen: ${what}: ${failure}; still watching (${ms} ms)\n`);
      return;
    }
    const warnings = generation.diagnostics.filter((d: Diagnostic) => d.severity === "warning").length;
    const counted = warnings === 0 ? "" : `, ${warnings} warning${warnings === 1 ? "" : "s"}`;
    io.stderr(`gen: ${what}: ${countTools(generation.file!.tools.length)}${counted} → ${shownOut} (${ms} ms)\n`);
  };

  const watchInputs = (generation: Generation, changed: readonly string[]) => {
    missing.update(new Set(generation.diagnostics.flatMap((d) => (d.severity === "error" && d.file !== undefined ? [d.file] : []))), changed);
    const dirs = new Set([options.toolsDir, ...generator.inputFiles().map((file) => path.dirname(file)), ...missing.folders()]);
    for (const [dir, watched] of watchers) {
      if (!dirs.has(dir) || watched.identity !== identityOf(dir)) {
        watched.watcher.close();
        watchers.delete(dir);
      }
    }
    for (const dir of dirs) {
      if (watchers.has(dir)) continue;
      try {
        watchers.set(dir, { watcher: watch(dir, (_event, name) => name && onChange(path.join(dir, name.toString()))), identity: identityOf(dir) });
      } catch {
        // A folder that vanished is noticed through the files it held.
      }
    }
  };

  const onChange = (file: string) => {
    if (closed) return;
    const input = generator.inputFiles().includes(file);
    const toolFile = path.dirname(file) === options.toolsDir && file.endsWith(".ts") && !file.endsWith(".d.ts");
    // A file no import resolved to until now: the files importing it must resolve their imports again.
    const newlyThere = input || toolFile ? [] : missing.importersOf(file);
    if (!input && !toolFile && newlyThere.length === 0) return;
    if (input && !toolFile) deletedInputs.add(file);
    for (const importer of newlyThere) importers.add(importer);
    pending.add(file);
    clearTimeout(timer);
    timer = setTimeout(regenerate, SETTLE_MS);
  };

  const regenerate = () => {
    const named = [...pending];
    // An imported file deleted: what imported it is not known to the Program without it, so every local file is read again.
    const deleted = [...deletedInputs].some((file) => !existsSync(file));
    const changed = [...new Set([...named, ...importers, ...(deleted ? generator.inputFiles() : [])])];
    pending = new Set();
    importers = new Set();
    deletedInputs = new Set();
    const started = performance.now();
    const what = named.map((file) => relativePath(io.cwd, file)).join(", ");
    try {
      const generation = generator.update(changed);
      publish(generation, what, started, true);
      watchInputs(generation, changed);
    } catch (error) {
      // Keep watching: the next save may well fix whatever this was.
      const message = error instanceof Error ? error.message : String(error);
      io.stderr(`gen: ${what}: the generator failed unexpectedly (${message}); still watching\n`);
    }
  };

  const started = performance.now();
  const first = generator.generateAll();
  // Watch before saying so: a file saved just after the "watching" line must not go unnoticed.
  watchInputs(first, []);
  publish(first, `watching ${relativePath(io.cwd, options.toolsDir) || "."}`, started, false);
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const { watcher } of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

/** A folder's inode and birth time; undefined when it is gone. */
function identityOf(dir: string): string | undefined {
  try {
    const stats = statSync(dir);
    return `${stats.ino}:${stats.birthtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * The first generation prints everything. A regeneration prints errors, with the warnings of the files
 * that have errors (context for fixing them), and otherwise only its one line, which counts warnings:
 * reprinting unchanged warnings on every save buries the line that matters.
 */
function shownDiagnostics(diagnostics: readonly Diagnostic[], regenerated: boolean): readonly Diagnostic[] {
  if (!regenerated) return diagnostics;
  const filesWithErrors = new Set(diagnostics.filter((d) => d.severity === "error").map((d) => d.file));
  return diagnostics.filter((d) => d.severity === "error" || (d.file !== undefined && filesWithErrors.has(d.file)));
}
