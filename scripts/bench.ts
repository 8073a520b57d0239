/**
 * `npm run bench`: every benchmark section, one Markdown table each, on stdout. Each ratio is taken
 * against a baseline measured in the same run, so the numbers hold on a shared, noisy machine.
 * `npm run bench -- gen` (or `runtime`, `reliability`, `mcp`, `mcp-http`, `mcp-client`, `approval-diff`) runs one section.
 */
const sections: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  gen: () => import("../bench/gen-bench.js"),
  runtime: () => import("../bench/runtime-bench.js"),
  reliability: () => import("../bench/soak.js"),
  mcp: () => import("../bench/mcp-bench.js"),
  "mcp-http": () => import("../bench/mcp-http-bench.js"),
  "mcp-client": () => import("../bench/mcp-client-bench.js"),
  "approval-diff": () => import("../bench/approval-diff-bench.js"),
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in sections));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown section ${unknown.join(", ")}; choose from ${Object.keys(sections).join(", ")}\n`);
  process.exit(2);
}
// Figures differ between Node lines (V8 versions): every table below was measured on this one.
process.stdout.write(`Node ${process.version} (V8 ${process.versions.v8}), ${process.platform}-${process.arch}\n\n`);
for (const [name, load] of Object.entries(sections)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  await (await load()).run();
}
