import path from "node:path";
import type { ts } from "./program/compiler.js";

export type Severity = "error" | "warning";

/** A problem found while generating: collected as a value, printed once at the end. */
export interface Diagnostic {
  severity: Severity;
  message: string;
  /** Absolute path; absent for problems that belong to no file (a missing folder, a bad flag). */
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  col?: number;
  /**
   * Other places the message names, written `{0}`, `{1}`… in it; they are printed relative to the
   * directory the user runs from, like the main location.
   */
  refs?: Place[];
}

export type Place = Pick<Diagnostic, "file" | "line" | "col">;

/** The start of a node, past its comments: lines count `\n`, columns are 1-based. */
export function diagnosticAt(node: ts.Node, severity: Severity, message: string): Diagnostic {
  const sourceFile = node.getSourceFile();
  const start = node.getStart(sourceFile);
  const breaks = lineBreaksOf(sourceFile);
  const newlinesBefore = countBefore(breaks.lf, start);
  const returnsBefore = countBefore(breaks.cr, start);
  const line = 1 + newlinesBefore;
  const lineStart = Math.max(breaks.lf[newlinesBefore - 1] ?? -1, breaks.cr[returnsBefore - 1] ?? -1) + 1;
  return { severity, message, file: sourceFile.fileName, line, col: start - lineStart + 1 };
}

/** Where each `\n` and `\r` of a source file's text is (a file has several tools to place; its text never changes). */
const lineBreaks = new WeakMap<ts.SourceFile, { lf: number[]; cr: number[] }>();

function lineBreaksOf(sourceFile: ts.SourceFile): { lf: number[]; cr: number[] } {
  let found = lineBreaks.get(sourceFile);
  if (found === undefined) {
    const text = sourceFile.text;
    const positions = (character: string) => {
      const result: number[] = [];
      for (let at = text.indexOf(character); at !== -1; at = text.indexOf(character, at + 1)) result.push(at);
      return result;
    };
    found = { lf: positions("\n"), cr: positions("\r") };
    lineBreaks.set(sourceFile, found);
  }
  return found;
}

/** How many of the sorted `positions` are below `limit`. */
export function countBefore(positions: readonly number[], limit: number): number {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (positions[middle]! < limit) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** `tools/x.ts:12:5 error: message`, with the path relative to `cwd` so it is clickable in a terminal. */
export function formatDiagnostic(diagnostic: Diagnostic, cwd: string): string {
  const where = diagnostic.file === undefined ? "" : `${formatLocation(diagnostic, cwd)} `;
  const message = diagnostic.message.replace(/\{(\d+)\}/g, (token, index: string) => {
    const place = diagnostic.refs?.[Number(index)];
    return place === undefined ? token : formatLocation(place, cwd) || ".";
  });
  return `${where}${diagnostic.severity}: ${message}`;
}

function formatLocation(diagnostic: Place, cwd: string): string {
  if (diagnostic.file === undefined) return "";
  const file = relativePath(cwd, diagnostic.file) || ".";
  return diagnostic.line === undefined ? file : `${file}:${diagnostic.line}:${diagnostic.col ?? 1}`;
}

/** A path relative to `from`, with `/` separators on every platform. */
export function relativePath(from: string, to: string): string {
  return path.relative(from, to).split(path.sep).join("/");
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((diagnostic) => diagnostic.severity === "error");
}

/** Errors first, then by file, line and column, so the output reads the same on every run. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const rank = (d: Diagnostic) => (d.severity === "error" ? 0 : 1);
  return [...diagnostics].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (a.file ?? "").localeCompare(b.file ?? "") ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.col ?? 0) - (b.col ?? 0) ||
      a.message.localeCompare(b.message),
  );
}
