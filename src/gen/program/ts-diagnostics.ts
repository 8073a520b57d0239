import { ts } from "./compiler.js";
import type { Diagnostic } from "../diagnostic.js";

/** The compiler's own diagnostics for one file (or the whole program), as our Diagnostic values. */
export function compilerDiagnostics(program: ts.Program, sourceFile?: ts.SourceFile): Diagnostic[] {
  const found = sourceFile === undefined
    ? [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()]
    : [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)];
  return asDiagnostics(found);
}

/** The errors among the compiler's diagnostics, as our Diagnostic values. */
export function asDiagnostics(found: readonly ts.Diagnostic[]): Diagnostic[] {
  return found.filter((d) => d.category === ts.DiagnosticCategory.Error).map(toDiagnostic);
}

function toDiagnostic(diagnostic: ts.Diagnostic): Diagnostic {
  const message = `${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")} (TS${diagnostic.code})`;
  if (diagnostic.file === undefined || diagnostic.start === undefined) return { severity: "error", message };
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return { severity: "error", message, file: diagnostic.file.fileName, line: line + 1, col: character + 1 };
}
