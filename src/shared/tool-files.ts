import { readdirSync } from "node:fs";

/**
 * The tool files of a tools folder: its `*.ts` files (not `*.d.ts`), not recursive, sorted by name.
 * Shared by the generator (what to reflect over) and the runtime (what the staleness hash covers).
 * Throws the `fs` error (ENOENT, ENOTDIR) for a missing folder; callers turn it into a message.
 */
export function listToolFiles(toolsDir: string): string[] {
  return readdirSync(toolsDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && isToolFileName(entry.name))
    .map((entry) => entry.name)
    .sort();
}

/** Whether a file name is one gen reads as a tool file: `*.ts`, not `*.d.ts`. */
export function isToolFileName(name: string): boolean {
  return name.endsWith(".ts") && !name.endsWith(".d.ts");
}
