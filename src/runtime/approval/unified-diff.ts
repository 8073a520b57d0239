/**
 * A unified diff of a file's change (`--- a/PATH` / `+++ b/PATH`, 3 lines of context), computed with the
 * `diff` package. Lines the two texts share at the start and the end are set aside first (all but the
 * context), so an edit of a large file diffs only the few lines around it. A stretch only added or only
 * removed (a new file among them) is shown whole, at a cost linear in its length. The line diff looks
 * for at most 200 edits (a line removed or added; its cost grows with their square, and with the
 * stretch's length times them) in a stretch of at most 10,000 lines. A change beyond that could not be
 * read anyway (a screen shows 200 lines): the headers are followed by one summary line instead of
 * thousands of `-` and `+` lines, `whole file replaced: N lines → M lines (changed in too many places
 * to show line by line)`, or `lines A–B replaced: …` when the file's start or end is kept. Everything
 * but that summary is a patch that turns the old text into the new one. The limits count lines and
 * edits, never time, so a change is always shown the same way; a 1 MB file's preview stays well under
 * 100 ms. A name that holds a line break, another control character, a quote or a backslash is written as
 * a quoted string (`--- "a/x\ny"`, as git quotes it), so a name cannot add lines to the diff.
 */
import { structuredPatch, type StructuredPatchHunk } from "diff";

const CONTEXT = 3;
/** The most edits the line diff looks for before it gives up: as many lines as a screen shows. */
const MAX_EDIT_LENGTH = 200;
/** Past this many lines in the changed stretch (both sides), even preparing the line diff costs too much. */
const MAX_DIFFED_LINES = 10_000;

/** The diff from `before` (`undefined`: the file does not exist yet) to `after`. */
export function unifiedDiff(path: string, before: string | undefined, after: string): string {
  const header = [`--- ${headerPath("a", path)}`, `+++ ${headerPath("b", path)}`];
  const old = splitLines(before ?? "");
  const now = splitLines(after);
  let start = 0;
  while (start < old.length && start < now.length && old[start] === now[start]) start += 1;
  let end = 0;
  while (end < old.length - start && end < now.length - start && old[old.length - 1 - end] === now[now.length - 1 - end]) end += 1;
  if (start === old.length && start === now.length) return header.join("\n");
  const stretch: Stretch = { old, now, start, end, skipStart: Math.max(0, start - CONTEXT), skipEnd: Math.max(0, end - CONTEXT) };
  const removed = old.length - start - end;
  const added = now.length - start - end;
  if (removed === 0 || added === 0) return [...header, ...hunkLines(wholeStretch(stretch), stretch.skipStart)].join("\n");
  const oldLines = old.slice(stretch.skipStart, old.length - stretch.skipEnd);
  const newLines = now.slice(stretch.skipStart, now.length - stretch.skipEnd);
  const patch = oldLines.length + newLines.length > MAX_DIFFED_LINES
    ? undefined
    : structuredPatch("a", "b", oldLines.join(""), newLines.join(""), undefined, undefined, { context: CONTEXT, maxEditLength: MAX_EDIT_LENGTH });
  if (patch === undefined) return [...header, replacementSummary(stretch)].join("\n");
  return [...header, ...patch.hunks.flatMap((hunk) => hunkLines(hunk, stretch.skipStart))].join("\n");
}

/** Characters that could end a line of the preview or be misread in a name (git quotes names for them). */
const MISREADABLE_NAME = /[\u0000-\u001f\u007f-\u009f\u2028\u2029"\\]/u;

/** A workspace path as the preview names it: as it is, or as a JSON string when it could be misread. */
export function previewName(path: string): string {
  return MISREADABLE_NAME.test(path) ? JSON.stringify(path) : path;
}

/** `a/PATH`, quoted whole when the name could be misread, as git writes `--- "a/x\ny"`. */
function headerPath(side: "a" | "b", path: string): string {
  const named = `${side}/${path}`;
  return MISREADABLE_NAME.test(path) ? JSON.stringify(named) : named;
}

/** The changed lines are `old[start, old.length - end)` and `now[start, now.length - end)`; the skips leave the context out. */
interface Stretch {
  old: readonly string[];
  now: readonly string[];
  start: number;
  end: number;
  skipStart: number;
  skipEnd: number;
}

/** The line shown instead of a diff too large to show line by line: where the changed stretch is in the old file, and its length on both sides. */
function replacementSummary({ old, now, start, end }: Stretch): string {
  const what = start === 0 && end === 0 ? "whole file" : `lines ${start + 1}–${old.length - end}`;
  return `${what} replaced: ${lineCount(old.length - start - end)} → ${lineCount(now.length - start - end)} (changed in too many places to show line by line)`;
}

function lineCount(count: number): string {
  return count === 1 ? "1 line" : `${count} lines`;
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

/** One hunk: the context, every old line of the stretch removed, every new one added, the context. */
function wholeStretch({ old, now, start, end, skipStart, skipEnd }: Stretch): StructuredPatchHunk {
  const before = old.slice(skipStart, start);
  const after = old.slice(old.length - end, old.length - skipEnd);
  const removed = old.slice(start, old.length - end);
  const added = now.slice(start, now.length - end);
  return {
    oldStart: 1,
    oldLines: before.length + removed.length + after.length,
    newStart: 1,
    newLines: before.length + added.length + after.length,
    lines: [...marked(before, " "), ...marked(removed, "-"), ...marked(added, "+"), ...marked(after, " ")],
  };
}

/** Diff lines without their line breaks; only a file's last line can lack one, and diff(1) says so after it. */
function marked(lines: readonly string[], sign: " " | "-" | "+"): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (line.endsWith("\n")) out.push(`${sign}${line.slice(0, -1)}`);
    else out.push(`${sign}${line}`, "\\ No newline at end of file");
  }
  return out;
}
