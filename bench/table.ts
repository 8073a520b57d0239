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
