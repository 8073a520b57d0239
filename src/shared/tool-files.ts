import { readdirSync } from "node:fs";

/**
 * The tool files of a tools folder: its `*.ts` files (not `*.d.ts`), not recursive, sorted by name.
 * Shared by the generator (what to reflect over) and the runtime (what the staleness hash covers).
 * Throws the `fs` error (ENOENT, ENOTDIR) for a missing folder; callers turn it into a message.
 */
export function listToolFiles(toolsDir: string): string[] {
  return readdirSync(toolsDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => entry.name)
    .sort();
}
