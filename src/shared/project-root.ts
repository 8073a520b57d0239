/**
 * Where an installed `sigloop` command finds its project when run from a subfolder: the nearest folder
 * upwards, the current one included, that holds what the command needs (`generated/schemas.json` for
 * agent and mcp, `package.json` for gen). Flags still resolve against the current folder.
 */
import { existsSync } from "node:fs";
import path from "node:path";

/** The nearest folder from `start` upwards that holds `marker` (a relative path), or `undefined`. */
export function nearestFolderWith(start: string, marker: string): string | undefined {
  for (let folder = path.resolve(start); ; folder = path.dirname(folder)) {
    if (existsSync(path.join(folder, marker))) return folder;
    if (path.dirname(folder) === folder) return undefined;
  }
}

/** The project root for a command run in `cwd`: the nearest folder with `marker`, else `cwd` itself. */
export function projectRootFor(cwd: string, marker: string): { root: string; line?: string } {
  const found = nearestFolderWith(cwd, marker);
  if (found === undefined || found === path.resolve(cwd)) return { root: cwd };
  return { root: found, line: `sigloop: project root ${found} (the nearest folder upwards with ${marker})` };
}
