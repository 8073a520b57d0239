import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * A content hash of the generator's inputs. Both the generator (to record it) and the runtime (to refuse a
 * stale schemas file) call this, so it must only read files: no compiler, no clock, no absolute paths.
 *
 * @param baseDir the directory of the schemas file; `files` are relative to it, with `/` separators.
 * @returns a hex sha256, or `undefined` when one of the files cannot be read (a deleted file is stale).
 */
export function hashInputs(baseDir: string, files: readonly string[]): string | undefined {
  const hash = createHash("sha256");
  for (const file of [...new Set(files)].sort()) {
    let content: Buffer;
    try {
      content = readFileSync(path.resolve(baseDir, file));
    } catch {
      return undefined;
    }
    hash.update(file).update("\0").update(content).update("\0");
  }
  return hash.digest("hex");
}
