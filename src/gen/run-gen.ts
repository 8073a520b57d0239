import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { checkSchemas, describeCheck } from "./check-schemas.js";
import { leaveCodeCacheUnwritten } from "./code-cache.js";
import { GEN_USAGE, parseGenArgs, type GenOptions } from "./cli-args.js";
import { restoreOptimizingCompiler } from "./one-shot-tiering.js";
import { formatDiagnostic, hasErrors, relativePath, type Diagnostic } from "./diagnostic.js";
import { ToolGenerator, type Generation } from "./tool-generator.js";
import { watchTools, type WatchHandle } from "./watch-tools.js";

/** Where the CLI writes: results to stdout, diagnostics and progress to stderr. */
export interface GenIo {
  cwd: string;
  /** Where the default tools folder and schemas file are (the project root); default `cwd`. */
  root?: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const processIo = (): GenIo => ({
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});

/**
 * `npm run gen`: generate (or `--check`) once and return the exit code, or start `--watch` and return
 * its handle. Every problem is printed as `file:line:col severity: message`; any error means exit 1
 * and nothing written.
 */
export function runGen(argv: readonly string[], io: GenIo): number | WatchHandle {
  try {
    return generateOnce(argv, io);
  } catch (error) {
    // A defect of ours or of a library, not of the tools: still one line, not a stack trace.
    const message = error instanceof Error ? error.message : String(error);
    return report([{ severity: "error", message: `the generator failed unexpectedly: ${message}; please report it with the tool file that triggers it` }], io);
  }
}

function generateOnce(argv: readonly string[], io: GenIo): number | WatchHandle {
  const options = parseGenArgs(argv, io.cwd, io.root);
  if (options === "help") {
    io.stdout(`${GEN_USAGE}\n`);
    return 0;
  }
  if ("severity" in options) {
    report([options], io);
    return options.exitCode;
  }
  if (options.check) leaveCodeCacheUnwritten();
  if (isDirectory(options.outFile)) {
    const shown = relativePath(io.cwd, options.outFile) || ".";
    return report([{ severity: "error", message: `--out ${shown} is a directory; give a file path such as ${path.join(shown, "schemas.json")}` }], io);
  }
  const generator = ToolGenerator.open(options.toolsDir, options.outFile);
  if ("severity" in generator) return report([generator], io);
  if (options.watch) {
    const handle = watchTools(generator, options, io);
    restoreOptimizingCompiler();
    return handle;
  }
  const generation = generator.generateAll();
  if (report(generation.diagnostics, io) !== 0 || generation.file === undefined || generation.text === undefined) return 1;
  return options.check ? check(options, generation, io) : write(options, generation, io);
}

/** Prints diagnostics; returns the exit code they call for. */
export function report(diagnostics: readonly Diagnostic[], io: GenIo): number {
  for (const diagnostic of diagnostics) io.stderr(`${formatDiagnostic(diagnostic, io.cwd)}\n`);
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  if (errors > 0) io.stderr(`gen: ${errors} error${errors === 1 ? "" : "s"}; nothing written\n`);
  return hasErrors(diagnostics) ? 1 : 0;
}

function check(options: GenOptions, generation: Generation, io: GenIo): number {
  const shown = relativePath(io.cwd, options.outFile);
  const result = checkSchemas(readText(options.outFile), generation.file!, generation.text!);
  (result.upToDate ? io.stdout : io.stderr)(`${describeCheck(result, shown)}\n`);
  return result.upToDate ? 0 : 1;
}

function write(options: GenOptions, generation: Generation, io: GenIo): number {
  const failure = writeSchemasOrExplain(options.outFile, generation.text!, io.cwd);
  if (failure !== undefined) return report([{ severity: "error", message: failure }], io);
  io.stdout(`gen: ${countTools(generation.file!.tools.length)} → ${relativePath(io.cwd, options.outFile)}\n`);
  return 0;
}

export function countTools(count: number): string {
  return `${count} tool${count === 1 ? "" : "s"}`;
}

/**
 * Writes only when the bytes differ, so an unchanged file keeps its timestamp. Bytes are compared, not
 * text: decoding the 3 MB file of 500 tools as UTF-8 to compare strings took twice as long.
 */
export function writeSchemas(outFile: string, text: string): boolean {
  const bytes = Buffer.from(text);
  if (holdsBytes(outFile, bytes)) return false;
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, bytes);
  return true;
}

function holdsBytes(file: string, bytes: Buffer): boolean {
  try {
    return statSync(file).size === bytes.length && readFileSync(file).equals(bytes);
  } catch {
    return false;
  }
}

/** Writes like `writeSchemas`; returns what went wrong, in words, instead of throwing. */
export function writeSchemasOrExplain(outFile: string, text: string, cwd: string): string | undefined {
  try {
    writeSchemas(outFile, text);
    return undefined;
  } catch (error) {
    return `cannot write ${relativePath(cwd, outFile)}: ${writeProblem(error)}`;
  }
}

function writeProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EISDIR") return "it is a directory; give a file path inside it";
  if (code === "EACCES" || code === "EPERM") return "permission denied; choose another --out or fix the folder's permissions";
  if (code === "ENOTDIR" || code === "EEXIST") return "a part of its path is a file, not a folder";
  if (code === "EROFS") return "the file system is read-only";
  if (code === "ENOSPC") return "the disk is full";
  return error instanceof Error ? error.message : String(error);
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
