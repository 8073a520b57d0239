/**
 * The order a file's tools are built in: the order `localeCompare` gives their names in English (the
 * Unicode root collation), computed here without ICU. The order matters, as the checker creates types in
 * the order tools are built, which the schemas of unions can show. A tool name holds only ASCII letters,
 * digits, `_` and `-` (`discover-tools.ts` drops any other), and over those the collation is: first by
 * `_` < `-` < digits < letters ignoring case, a name before any longer name it begins; then, between
 * names equal but for case, by the first letter that differs, lower case first.
 *
 * Why: the first `localeCompare` of a process sets up ICU's collator, 6–9 ms of a cold `gen`. And the
 * order no longer depends on the user's locale (in Danish `aa` sorts after `z`).
 */
const PRIMARY_ORDER = "_-0123456789abcdefghijklmnopqrstuvwxyz";
const primaryWeight = new Map([...PRIMARY_ORDER].map((char, weight) => [char, weight]));

export function compareToolNames(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let byCase = 0;
  for (let i = 0; i < length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    const difference = weightOf(x) - weightOf(y);
    if (difference !== 0) return Math.sign(difference);
    if (byCase === 0) byCase = x === x.toLowerCase() ? -1 : 1;
  }
  return a.length !== b.length ? Math.sign(a.length - b.length) : byCase;
}

function weightOf(char: string): number {
  const weight = primaryWeight.get(char.toLowerCase());
  if (weight === undefined) throw new Error(`not a tool name character: ${JSON.stringify(char)}`);
  return weight;
}
