import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The process `npm run <name>` starts, as argv for `spawn(process.execPath, …)`: the script in
 * package.json with `node` (or `tsx`) resolved and its files made absolute, npm's own start-up left out. Benchmarks
 * run it so that they measure whatever the script is when they run.
 */
export function npmScriptArgs(root: string, name: string): string[] {
  const scripts = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  const [command, ...words] = (scripts[name] ?? "").trim().split(/\s+/);
  const args = words.map((word) => (!word.startsWith("-") && existsSync(path.join(root, word)) ? path.join(root, word) : word));
  if (command === "node") return args;
  if (command === "tsx") return [path.join(root, "node_modules", "tsx", "dist", "cli.mjs"), ...args];
  throw new Error(`package.json's ${name} script does not start with node or tsx: ${scripts[name] ?? "(none)"}`);
}
