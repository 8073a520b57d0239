import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { checkSchemas, describeCheck } from "./check-schemas.js";
import { countTools, type GenIo } from "./gen-io.js";
import { leaveCodeCacheUnwritten } from "../program/code-cache.js";
import { GEN_USAGE, parseGenArgs, type GenOptions } from "./cli-args.js";
import { formatDiagnostic, hasErrors, relativePath, type Diagnostic } from "../diagnostic.js";
import { ToolGenerator, type Generation } from "../tool-generator.js";
import { watchTools, type WatchHandle } from "./watch-tools.js";
import { writeSchemasOrExplain } from "./write-schemas.js";

export { processIo, type GenIo } from "./gen-io.js";

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
  const generator = ToolGenerator.open(options.toolsDir, options.outFile, !options.watch);
  if ("severity" in generator) return report([generator], io);
  if (options.watch) {
    return watchTools(generator, options, io);
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
