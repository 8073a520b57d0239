/**
 * edit_file's text rules, on strings only: exact matches counted and located by line, the replacement
 * made byte for byte (no line-ending or whitespace normalisation), and the checks that refuse text a file
 * tool will not write. A UTF-8 file decodes to a string and encodes back to the same bytes, so working on
 * strings is working on bytes. A 10 MB file can hold ten million matches of a short text, so matches are
 * kept 4 bytes each, only the listed ones are located by line, and the replacement is joined in pieces:
 * the cost stays a small multiple of the file's size.
 */

/** The most bytes of UTF-8 a file tool writes, and the largest file edit_file edits: 10 MB. */
export const MAX_TEXT_BYTES = 10 * 1024 * 1024;

/** How many match lines a message lists. */
export const LISTED_LINES = 20;

/** Parts of a replacement joined at a time, so no array of millions of parts is ever held. */
const JOINED_PARTS = 4096;

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
export function matchIndexes(text: string, needle: string): Uint32Array {
  let found = new Uint32Array(16);
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    if (count === found.length) {
      const grown = new Uint32Array(found.length * 2);
      grown.set(found);
      found = grown;
    }
    found[count] = at;
    count += 1;
  }
  return found.subarray(0, count);
}

/** The 1-based line each index (in ascending order) falls on, in one pass over the text. */
export function lineNumbers(text: string, indexes: ArrayLike<number>): number[] {
  const lines: number[] = [];
  let line = 1;
  let nextBreak = text.indexOf("\n");
  for (let i = 0; i < indexes.length; i += 1) {
    const index = indexes[i] ?? 0;
    while (nextBreak !== -1 && nextBreak < index) {
      line += 1;
      nextBreak = text.indexOf("\n", nextBreak + 1);
    }
    lines.push(line);
  }
  return lines;
}

/** `4`, `4 and 9`, `4, 9 and 12`, or the first 20 and how many there are (`total`: the matches, when only the first lines were located). */
export function listLines(lines: readonly number[], total = lines.length): string {
  const shown = lines.slice(0, LISTED_LINES);
  const joined = shown.length === 1 ? `${shown[0]}` : `${shown.slice(0, -1).join(", ")} and ${shown[shown.length - 1]}`;
  return total > LISTED_LINES ? `${shown.join(", ")} (the first ${LISTED_LINES} of ${total})` : joined;
}

/** Lines as people count them: a last line without a line break counts too. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let breaks = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) breaks += 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}

/** `text` with each occurrence at `indexes` (of a `length`-long match) replaced by `replacement`. */
export function replaceAt(text: string, indexes: ArrayLike<number>, length: number, replacement: string): string {
  const pieces: string[] = [];
  let parts: string[] = [];
  let from = 0;
  for (let i = 0; i < indexes.length; i += 1) {
    const index = indexes[i] ?? from;
    parts.push(text.slice(from, index), replacement);
    from = index + length;
    if (parts.length >= JOINED_PARTS) {
      pieces.push(parts.join(""));
      parts = [];
    }
  }
  parts.push(text.slice(from));
  pieces.push(parts.join(""));
  return pieces.join("");
}
