/**
 * A unified diff of a file's change (`--- a/PATH` / `+++ b/PATH`, 3 lines of context), computed with the
 * `diff` package. Its line diff is fast for the edits a model makes; for two texts that share little it
 * could take seconds on large files, so past a time limit the change is shown as every old line removed
 * and every new line added, which is what such a change is anyway.
 */
import { structuredPatch, type StructuredPatchHunk } from "diff";

/** Longest the line diff may take before the whole-replacement form is used. */
const DIFF_TIME_LIMIT_MS = 50;

/** The diff from `before` (`undefined`: the file does not exist yet) to `after`. */
export function unifiedDiff(path: string, before: string | undefined, after: string): string {
  const old = before ?? "";
  const patch = structuredPatch(`a/${path}`, `b/${path}`, old, after, undefined, undefined, { context: 3, timeout: DIFF_TIME_LIMIT_MS });
  const hunks = patch?.hunks ?? [wholeReplacement(old, after)];
  return [`--- a/${path}`, `+++ b/${path}`, ...hunks.flatMap(hunkLines)].join("\n");
}

function hunkLines(hunk: StructuredPatchHunk): string[] {
  // A side with no lines is numbered from the line before it, as diff(1) and git do.
  const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
  const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
  return [`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`, ...hunk.lines];
}

function wholeReplacement(before: string, after: string): StructuredPatchHunk {
  const removed = sideLines(before, "-");
  const added = sideLines(after, "+");
  return {
    oldStart: 1,
    oldLines: countOf(before),
    newStart: 1,
    newLines: countOf(after),
    lines: [...removed, ...added],
  };
}

function sideLines(text: string, sign: "-" | "+"): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  const complete = text.endsWith("\n");
  if (complete) lines.pop();
  const marked = lines.map((line) => `${sign}${line}`);
  return complete ? marked : [...marked, "\\ No newline at end of file"];
}

function countOf(text: string): number {
  return sideLines(text, "-").filter((line) => line.startsWith("-")).length;
}
