/** Prints one Markdown table to stdout, so `npm run bench` output can be pasted into the README as is. */
export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
  const lines = [
    `### ${title}`,
    "",
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** The median of a non-empty list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One alternating round of a headline bench: `npm run …`, the installed bin and the baseline, in ms. */
export interface HeadlineRound {
  readonly script: number;
  readonly installed: number;
  readonly baseline: number;
}

/**
 * A headline table row: the median time of each side, then the medians of the per-round ratios (each
 * round's sides ran back to back, so a ratio within a round shares that round's machine load).
 */
export function headlineRow(label: string, rounds: readonly HeadlineRound[], digits: number): string[] {
  const ms = (values: number[]): string => `${median(values).toFixed(digits)} ms`;
  const ratio = (values: number[]): string => `**${median(values).toFixed(2)}x**`;
  return [
    label,
    ms(rounds.map((round) => round.script)),
    ms(rounds.map((round) => round.installed)),
    ms(rounds.map((round) => round.baseline)),
    ratio(rounds.map((round) => round.script / round.baseline)),
    ratio(rounds.map((round) => round.installed / round.baseline)),
  ];
}
