/**
 * The text of one member of a JSON object, as written: `memberText('{"a":{"b":1.0}}', ["a", "b"])` is
 * `1.0`. For text JSON.parse has already accepted (it does not validate). A key written with escapes is
 * read as JSON reads it, and of a key given twice the last counts, as for JSON.parse. Strings and nested
 * values are skipped by searching for their ends, not by reading them character by character.
 */

const STRUCTURAL = /[{}[\]"]/g;
const PRIMITIVE_END = /[\s,\]}]|$/g;
const SPACE = /\S|$/g;

/** The member's text, or undefined when `text` is no object or has no such member. */
export function memberText(text: string, path: readonly string[]): string | undefined {
  const [key, ...rest] = path;
  let at = skipSpace(text, 0);
  if (key === undefined || text[at] !== "{") return undefined;
  at = skipSpace(text, at + 1);
  let found: string | undefined;
  while (text[at] === '"') {
    const keyEnd = stringEnd(text, at);
    const name = JSON.parse(text.slice(at, keyEnd)) as string;
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const valueEnd = valueEndAt(text, valueStart);
    if (name === key) found = rest.length === 0 ? text.slice(valueStart, valueEnd) : memberText(text.slice(valueStart, valueEnd), rest);
    at = skipSpace(text, valueEnd);
    if (text[at] === ",") at = skipSpace(text, at + 1);
  }
  return found;
}

function valueEndAt(text: string, start: number): number {
  const first = text[start];
  if (first === '"') return stringEnd(text, start);
  if (first === "{" || first === "[") return nestedEnd(text, start + 1);
  return searchFrom(PRIMITIVE_END, text, start);
}

/** Just past the string whose opening quote is at `start`. */
function stringEnd(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/** Just past the bracket that closes the one before `start`. */
function nestedEnd(text: string, start: number): number {
  let depth = 1;
  let at = start;
  while (depth > 0) {
    STRUCTURAL.lastIndex = at;
    const found = STRUCTURAL.exec(text);
    if (found === null) return text.length;
    const char = found[0];
    if (char === '"') {
      at = stringEnd(text, found.index);
      continue;
    }
    depth += char === "{" || char === "[" ? 1 : -1;
    at = found.index + 1;
  }
  return at;
}

function skipSpace(text: string, start: number): number {
  return searchFrom(SPACE, text, start);
}

function searchFrom(pattern: RegExp, text: string, start: number): number {
  pattern.lastIndex = start;
  return pattern.exec(text)?.index ?? text.length;
}
