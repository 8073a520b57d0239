/**
 * What every sigloop command does with its command line before reading it: `--help` or `-h` anywhere
 * among the flags (before a `--`) asks for the usage and nothing else, and an unknown flag close to a
 * known one is named with the one meant. Each command hands in its own flag table, so a flag added to a
 * table is offered as a correction without further code.
 */

/** A command's flags by name (`--model`): whether each takes a value (`--model NAME`) or stands alone. */
export type FlagTable = Readonly<Record<string, "value" | "switch">>;

export const HELP_FLAGS: readonly string[] = ["--help", "-h"];

/** A mistyped flag this many edits from a known one is taken for it (`--modle` is two from `--model`). */
const MAX_EDITS = 2;

/** True when `--help` or `-h` stands among the flags, wherever it stands (a `--` ends the flags). */
export function helpRequested(argv: readonly string[]): boolean {
  for (const token of argv) {
    if (token === "--") return false;
    if (HELP_FLAGS.includes(token)) return true;
  }
  return false;
}

/** True when `flag` is given (`--schemas FILE` or `--schemas=FILE`) before any `--`. */
export function flagGiven(argv: readonly string[], flag: string): boolean {
  for (const token of argv) {
    if (token === "--") return false;
    if (token === flag || token.startsWith(`${flag}=`)) return true;
  }
  return false;
}

/** The known flag `name` was most likely meant to be, if one is within two edits (the first on a tie). */
export function flagMeant(name: string, table: FlagTable): string | undefined {
  let best: { flag: string; edits: number } | undefined;
  for (const flag of Object.keys(table)) {
    const edits = editDistance(name, flag, MAX_EDITS);
    if (edits <= MAX_EDITS && edits < flag.replace(/^-+/, "").length && (best === undefined || edits < best.edits)) best = { flag, edits };
  }
  return best?.flag;
}

/** `unknown flag --modle (did you mean --model?)`, or without the question when nothing is close. */
export function unknownFlag(name: string, table: FlagTable, noun = "flag"): { message: string; meant?: string } {
  const meant = flagMeant(name, table);
  return meant === undefined ? { message: `unknown ${noun} ${name}` } : { message: `unknown ${noun} ${name} (did you mean ${meant}?)`, meant };
}

/**
 * Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`, counted up to `limit + 1`:
 * flag names are short, so the table is tiny; stopping early keeps a hostile 10 MB argument cheap.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previousRow: number[] = [];
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const next = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let cost = Math.min(row[j]! + 1, next[j - 1]! + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cost = Math.min(cost, previousRow[j - 2]! + 1);
      next.push(cost);
      rowMinimum = Math.min(rowMinimum, cost);
    }
    if (rowMinimum > limit) return limit + 1;
    previousRow = row;
    row = next;
  }
  return row[b.length]!;
}
