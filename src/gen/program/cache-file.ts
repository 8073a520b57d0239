import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Writes one of gen's cache files: aside and renamed into place, so a concurrent run never reads half
 * of it. A failure (read-only node_modules, a full disk) is swallowed: a cache only ever costs speed,
 * and the next run makes it again.
 */
export function writeCacheFile(file: string, data: string | NodeJS.ArrayBufferView): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, data);
    renameSync(partial, file);
  } catch {
    // Nothing else changes: see above.
  }
}
