/**
 * A unified diff of a file's change (`--- a/PATH` / `+++ b/PATH`, 3 lines of context), computed with the
 * `diff` package. Lines the two texts share at the start and the end are set aside first (all but the
 * context), so an edit of a large file diffs only the few lines around it. A new file is shown whole.
 * When the changed stretch is long (over 10,000 lines on both sides together) or differs in too many
 * places for the line diff to stay fast, it is shown removed and rewritten whole: still a correct diff,
 * if not the shortest one, and a 1 MB file's diff stays well under 100 ms.
 */
import { structuredPatch, type StructuredPatchHunk } from "diff";

const CONTEXT = 3;
/** The most edits the line diff looks for before it gives up; its cost grows with lines × this. */
const MAX_EDIT_LENGTH = 400;
/** Longest the line diff may take before it gives up. */
const DIFF_TIME_LIMIT_MS = 30;
/** Past this many lines in the changed stretch (both sides), even preparing the line diff costs too much. */
const MAX_DIFFED_LINES = 10_000;

/** The diff from `before` (`undefined`: the file does not exist yet) to `after`. */
export function unifiedDiff(path: string, before: string | undefined, after: string): string {
  const header = [`--- a/${path}`, `+++ b/${path}`];
  const old = splitLines(before ?? "");
  const now = splitLines(after);
  let start = 0;
  while (start < old.length && start < now.length && old[start] === now[start]) start += 1;
  let end = 0;
  while (end < old.length - start && end < now.length - start && old[old.length - 1 - end] === now[now.length - 1 - end]) end += 1;
  if (start === old.length && start === now.length) return header.join("\n");
  // What both keep around the change, less the context lines, stays out of the diff.
  const skipStart = Math.max(0, start - CONTEXT);
  const skipEnd = Math.max(0, end - CONTEXT);
  const oldLines = old.slice(skipStart, old.length - skipEnd);
  const newLines = now.slice(skipStart, now.length - skipEnd);
  const oldMiddle = oldLines.join("");
  const newMiddle = newLines.join("");
  const patch = oldMiddle === "" || newMiddle === "" || oldLines.length + newLines.length > MAX_DIFFED_LINES
    ? undefined
    : structuredPatch("a", "b", oldMiddle, newMiddle, undefined, undefined, { context: CONTEXT, maxEditLength: MAX_EDIT_LENGTH, timeout: DIFF_TIME_LIMIT_MS });
  const hunks = patch?.hunks ?? [wholeReplacement(oldMiddle, newMiddle)];
  return [...header, ...hunks.flatMap((hunk) => hunkLines(hunk, skipStart))].join("\n");
}

/** Lines with their line breaks, so that joining them gives the text back. */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let from = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", from)) {
    lines.push(text.slice(from, at + 1));
    from = at + 1;
  }
  if (from < text.length) lines.push(text.slice(from));
  return lines;
}

function hunkLines(hunk: StructuredPatchHunk, offset: number): string[] {
  // A side with no lines is numbered from the line before it, as diff(1) and git do.
  const oldStart = hunk.oldStart + offset - (hunk.oldLines === 0 ? 1 : 0);
  const newStart = hunk.newStart + offset - (hunk.newLines === 0 ? 1 : 0);
  return [`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`, ...hunk.lines];
}

function wholeReplacement(before: string, after: string): StructuredPatchHunk {
  const removed = sideLines(before, "-");
  const added = sideLines(after, "+");
  return { oldStart: 1, oldLines: splitLines(before).length, newStart: 1, newLines: splitLines(after).length, lines: [...removed, ...added] };
}

function sideLines(text: string, sign: "-" | "+"): string[] {
  const lines = splitLines(text).map((line) => `${sign}${line.endsWith("\n") ? line.slice(0, -1) : line}`);
  return text === "" || text.endsWith("\n") ? lines : [...lines, "\\ No newline at end of file"];
}
