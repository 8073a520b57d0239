import { ts } from "./compiler.js";
import type { Diagnostic } from "../diagnostic.js";

/** The compiler's own diagnostics for one file (or the whole program), as our Diagnostic values. */
export function compilerDiagnostics(program: ts.Program, sourceFile?: ts.SourceFile): Diagnostic[] {
  if (sourceFile === undefined) return asDiagnostics([...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()]);
  return fileDiagnostics(program.getSyntacticDiagnostics(sourceFile), () => program.getSemanticDiagnostics(sourceFile));
}

/**
 * A file's errors: its syntax errors alone when it has any, as tsc reports them. The type errors of code
 * that does not parse follow from the syntax error (`a: string: string` also reads as an implicit `any`),
 * and sorted by position they would come first and hide it.
 */
export function fileDiagnostics(syntactic: readonly ts.Diagnostic[], semantic: () => readonly ts.Diagnostic[]): Diagnostic[] {
  const syntaxErrors = asDiagnostics(syntactic);
  return syntaxErrors.length > 0 ? syntaxErrors : asDiagnostics(semantic());
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
