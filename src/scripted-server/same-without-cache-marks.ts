/**
 * Whether two JSON values (as `JSON.parse` gives them) are the same once every `cache_control` member is
 * left out: a cache breakpoint marks a block without changing what the model reads, so the scripted
 * server compares a conversation's prefixes and tool lists without them. The same answer as comparing
 * their `JSON.stringify` texts with those members dropped (members in order), but worked out in place and
 * left at the first difference: a run's history grows by a few messages a request, and writing every
 * earlier message out twice a request cost the server more than the rest of the request.
 */
export function sameWithoutCacheMarks(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameWithoutCacheMarks(item, other[i]));
  }
  const [left, right] = [a as Record<string, unknown>, b as Record<string, unknown>];
  const keys = Object.keys(left).filter((key) => key !== "cache_control");
  const otherKeys = Object.keys(right).filter((key) => key !== "cache_control");
  return keys.length === otherKeys.length && keys.every((key, i) => key === otherKeys[i] && sameWithoutCacheMarks(left[key], right[key]));
}
