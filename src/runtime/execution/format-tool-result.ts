import { isHighSurrogate } from "./describe-json.js";
import { NO_OUTPUT } from "./tool-messages.js";

/**
 * A tool's return value as the text the model reads: strings as they are, `undefined` (and anything
 * JSON has no text for) as "(no output)", everything else as compact JSON (bigints as strings of their
 * digits; a `Set` as an array, a `Map` as an object when every key is a string, else as an array of
 * `[key, value]` pairs: plain `JSON.stringify` would send both as `{}`).
 * Throws what `JSON.stringify` throws (a cycle, a throwing `toJSON`): the caller reports it.
 */
export function renderReturnValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return NO_OUTPUT;
  const text = JSON.stringify(value, (_key, member: unknown) => jsonReady(member)) as string | undefined;
  return text ?? NO_OUTPUT;
}

function jsonReady(member: unknown): unknown {
  if (typeof member === "bigint") return member.toString();
  if (member instanceof Set) return [...member];
  if (member instanceof Map) {
    const entries = [...member];
    return entries.every(([key]) => typeof key === "string") ? Object.fromEntries(entries) : entries;
  }
  return member;
}

/**
 * The note ending a cut result; its length is the only thing a result may exceed the cap by. `shared`: the
 * cap was this call's share of a turn whose calls share one budget, so fewer calls at once get more each.
 */
export function truncationNote(originalLength: number, keptLength: number, shared = false): string {
  const why = shared ? "; the calls of one turn share one budget, so fewer calls per turn get more each" : "";
  return `\n[truncated: showing the first ${keptLength} of ${originalLength} characters${why}]`;
}

/** Keeps the start of `text` within `maxChars` (never splitting a surrogate pair) and says how long it was. */
export function capContent(text: string, maxChars: number, shared = false): string {
  if (text.length <= maxChars) return text;
  let kept = Math.max(0, maxChars);
  if (kept > 0 && isHighSurrogate(text.charCodeAt(kept - 1))) kept -= 1;
  return text.slice(0, kept) + truncationNote(text.length, kept, shared);
}
