import { readFileSync } from "node:fs";
import path from "node:path";
import { writeCacheFile } from "./cache-file.js";
import { cacheWritesAllowed } from "./code-cache.js";
import { ts } from "./compiler.js";
import { fileDiagnostics } from "./ts-diagnostics.js";
import { versionOf } from "./tool-host.js";
import { toolsFolderKey, typingsPackagesRoot } from "./typings-cache.js";
import type { Diagnostic } from "../diagnostic.js";

/**
 * The compiler's diagnostics of a one-shot run's local files, kept for the next run as TypeScript's own
 * incremental build information (its builder, as `tsc --incremental` keeps it): one file per tools folder
 * in `node_modules/.cache/sigloop/diagnostics/`. The builder knows every file's version (a hash of its
 * text, `versionOf`) and what each file reaches, so a file is checked again when it, a file it depends on,
 * a declaration file or anything declaring globals changed, or the compiler or its options did; the
 * others' diagnostics are read back. Checking the tool bodies (their calls into Node's API above all) is
 * most of a cold run's compile. The schemas do not depend on it: they are built from the parameters'
 * types, in written order (`written-order.ts`). A missing, unreadable or stale file only costs speed.
 */

/** Bumped whenever what gen checks changes in a way the builder cannot see (how files are parsed). */
const FORMAT = 2;

/** The options that make a Program keep its diagnostics for the next run of this tools folder. */
export function keptDiagnosticsOptions(toolsDir: string): ts.CompilerOptions {
  const file = path.join(typingsPackagesRoot(), ".cache", "sigloop", "diagnostics", `${toolsFolderKey(toolsDir)}-v${FORMAT}.tsbuildinfo`);
  return { incremental: true, tsBuildInfoFile: file };
}

/** The diagnostics of the local files, checked or read back, and `save` to keep them for the next run. */
export interface CheckedFiles {
  diagnostics(file: string): Diagnostic[];
  /** The local files this run checked; the others' diagnostics were read back. */
  rechecked: readonly string[];
  /** Writes what this run checked (not under `gen --check`, which writes nothing). */
  save(): void;
}

/**
 * Checks what changed since the kept run of `program`'s options and reads the rest back. Every source
 * file of `program` must carry its version (`ToolHost`); `program` must have `keptDiagnosticsOptions`.
 */
export function checkLocalFiles(program: ts.Program, localFiles: readonly string[]): CheckedFiles {
  const options = program.getCompilerOptions();
  const kept = ts.readBuilderProgram(options, {
    useCaseSensitiveFileNames: () => ts.sys.useCaseSensitiveFileNames,
    getCurrentDirectory: () => program.getCurrentDirectory(),
    readFile: readOptional,
  });
  const builder = ts.createEmitAndSemanticDiagnosticsBuilderProgram(program, { createHash: versionOf }, kept);
  const local = new Set(localFiles);
  const rechecked: string[] = [];
  for (;;) {
    // Files outside the project (a package's own .ts) are not ours to check, as without the builder.
    const next = builder.getSemanticDiagnosticsOfNextAffectedFile(undefined, (sourceFile) => !local.has(sourceFile.fileName));
    if (next === undefined) break;
    if ("fileName" in next.affected) rechecked.push(next.affected.fileName);
  }
  return {
    rechecked,
    diagnostics: (file) => {
      const sourceFile = program.getSourceFile(file);
      if (sourceFile === undefined) return [];
      return fileDiagnostics(program.getSyntacticDiagnostics(sourceFile), () => builder.getSemanticDiagnostics(sourceFile));
    },
    save: () => {
      // gen's options say `noEmit`, so the builder's emit writes its build information and nothing else.
      if (cacheWritesAllowed()) builder.emit(undefined, (name, text) => writeCacheFile(name, text));
    },
  };
}

function readOptional(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
