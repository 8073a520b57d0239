/**
 * edit_file's text rules, on strings only: exact matches counted and located by line, the replacement
 * made byte for byte (no line-ending or whitespace normalisation), and the checks that refuse text a file
 * tool will not write. A UTF-8 file decodes to a string and encodes back to the same bytes, so working on
 * strings is working on bytes.
 */

/** The most bytes of UTF-8 a file tool writes, and the largest file edit_file edits: 10 MB. */
export const MAX_TEXT_BYTES = 10 * 1024 * 1024;

/** How many match lines a message lists. */
const LISTED_LINES = 20;

/** `10 MB (10485760 bytes)`: the limit as messages name it. */
export const LIMIT_TEXT = `10 MB (${MAX_TEXT_BYTES} bytes)`;

/** Why `text` cannot be written as UTF-8 text, or `undefined`. */
export function unwritableTextProblem(text: string): string | undefined {
  const nul = text.indexOf("\0");
  if (nul !== -1) return `it contains a NUL character (at character ${nul + 1}), and the file tools write text only`;
  const lone = /\p{Cs}/u.exec(text);
  if (lone !== null) return `it is not valid UTF-8 text (a lone surrogate, \\u${lone[0].charCodeAt(0).toString(16)}, at character ${lone.index + 1})`;
  return undefined;
}

/** Where each non-overlapping occurrence of `needle` starts, as indexes into `text`. */
export function matchIndexes(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

/** The 1-based line each index (in ascending order) falls on, in one pass over the text. */
export function lineNumbers(text: string, indexes: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let nextBreak = text.indexOf("\n");
  for (const index of indexes) {
    while (nextBreak !== -1 && nextBreak < index) {
      line += 1;
      nextBreak = text.indexOf("\n", nextBreak + 1);
    }
    lines.push(line);
  }
  return lines;
}

/** `4`, `4 and 9`, `4, 9 and 12`, or the first 20 and how many there are. */
export function listLines(lines: readonly number[]): string {
  const shown = lines.slice(0, LISTED_LINES);
  const joined = shown.length === 1 ? `${shown[0]}` : `${shown.slice(0, -1).join(", ")} and ${shown[shown.length - 1]}`;
  return lines.length > LISTED_LINES ? `${shown.join(", ")} (the first ${LISTED_LINES} of ${lines.length})` : joined;
}

/** Lines as people count them: a last line without a line break counts too. */
export function countLines(text: string): number {
  if (text === "") return 0;
  const breaks = matchIndexes(text, "\n").length;
  return text.endsWith("\n") ? breaks : breaks + 1;
}

/** `text` with each occurrence at `indexes` (of a `length`-long match) replaced by `replacement`. */
export function replaceAt(text: string, indexes: readonly number[], length: number, replacement: string): string {
  const parts: string[] = [];
  let from = 0;
  for (const index of indexes) {
    parts.push(text.slice(from, index), replacement);
    from = index + length;
  }
  parts.push(text.slice(from));
  return parts.join("");
}
