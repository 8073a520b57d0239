/**
 * The gen command that writes a given schemas file, as the user types it from the current folder: plain
 * `npm run gen` (`npx sigloop gen` installed) for the default file of the project gen picks from here
 * (the nearest folder upwards with a package.json), else with `--out <file>`, and with `--tools <dir>`
 * when the file was generated from another folder than that project's `tools`. A hint that says "run
 * gen" names this command, so following it writes the very file that was missing or stale. `toolsDir` is
 * the folder as the schemas file records it (`inputs.toolsDir`, relative to the file's folder).
 */
import path from "node:path";
import { commandLine } from "../../shared/package-layout.js";
import { projectRootFor } from "../../shared/project-root.js";

export function genCommandFor(schemasPath: string, toolsDir?: string, cwd = process.cwd()): string {
  const root = path.resolve(projectRootFor(cwd, "package.json").root);
  const tools = toolsDir === undefined ? undefined : path.resolve(path.dirname(path.resolve(cwd, schemasPath)), toolsDir);
  const args: string[] = [];
  if (tools !== undefined && tools !== path.join(root, "tools")) args.push("--tools", shellWord(shownPath(tools, cwd)));
  if (path.resolve(schemasPath) !== path.join(root, "generated", "schemas.json")) args.push("--out", shellWord(shownPath(schemasPath, cwd)));
  return commandLine("gen", args.join(" "));
}

/** Relative to the current folder when inside it, else absolute: the shorter path that still works from here. */
function shownPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, path.resolve(cwd, file));
  return relative === "" || relative.startsWith("..") || path.isAbsolute(relative) ? path.resolve(cwd, file) : relative;
}

/** The path as one word of a POSIX shell: as it is when it holds nothing a shell reads, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
