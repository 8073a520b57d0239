import { readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The tool files of a tools folder: its `*.ts` files (not `*.d.ts`), not recursive, sorted by name.
 * Shared by the generator (what to reflect over) and the runtime (what the staleness hash covers).
 * A symbolic link counts when its real path is a regular file in the folder itself, as the runtime
 * confines what a schemas file may import (runtime/execution/confine-bindings.ts); a link out of the
 * folder is listed apart (`linksOut`), for gen to refuse by name rather than skip in silence. A dangling
 * link, or one to a folder, is no tool file. Throws the `fs` error (ENOENT, ENOTDIR) for a missing folder;
 * callers turn it into a message.
 */
export function readToolFolder(toolsDir: string): { files: string[]; linksOut: { name: string; target: string }[] } {
  const files: string[] = [];
  const linksOut: { name: string; target: string }[] = [];
  let realDir: string | undefined;
  for (const entry of readdirSync(toolsDir, { withFileTypes: true })) {
    if (!isToolFileName(entry.name)) continue;
    if (entry.isFile()) files.push(entry.name);
    else if (entry.isSymbolicLink()) {
      const target = linkedFile(path.join(toolsDir, entry.name));
      if (target === undefined) continue;
      realDir ??= realpathSync(toolsDir);
      if (path.dirname(target) === realDir) files.push(entry.name);
      else linksOut.push({ name: entry.name, target });
    }
  }
  return { files: files.sort(), linksOut: linksOut.sort((a, b) => (a.name < b.name ? -1 : 1)) };
}

export function listToolFiles(toolsDir: string): string[] {
  return readToolFolder(toolsDir).files;
}

/** Whether a file name is one gen reads as a tool file: `*.ts`, not `*.d.ts`. */
export function isToolFileName(name: string): boolean {
  return name.endsWith(".ts") && !name.endsWith(".d.ts");
}

/** The real path of the regular file a link leads to; `undefined` for a dangling link or one to anything else. */
function linkedFile(link: string): string | undefined {
  try {
    return statSync(link).isFile() ? realpathSync(link) : undefined;
  } catch {
    return undefined;
  }
}
