import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { listToolFiles } from "./tool-files.js";
import type { GeneratedInputs } from "./schemas-file.js";

/**
 * The hash that decides whether a schemas file is stale. The generator records it and the runtime
 * recomputes it, both through this function, so it only reads files: no compiler, no clock, no absolute
 * paths. It covers the recorded input files and every tool file now in the tools folder, so a new,
 * changed or deleted tool file changes it.
 *
 * @param schemasDir the directory of the schemas file; paths in `inputs` are relative to it.
 * @returns a hex sha256, or `undefined` when a recorded file or the tools folder cannot be read.
 */
export function currentInputsHash(schemasDir: string, inputs: Omit<GeneratedInputs, "hash">): string | undefined {
  let toolFiles: string[];
  try {
    toolFiles = listToolFiles(path.resolve(schemasDir, inputs.toolsDir)).map((name) => path.posix.join(inputs.toolsDir, name));
  } catch {
    return undefined;
  }
  const hash = createHash("sha256");
  for (const file of [...new Set([...inputs.files, ...toolFiles])].sort()) {
    let content: Buffer;
    try {
      content = readFileSync(path.resolve(schemasDir, file));
    } catch {
      return undefined;
    }
    hash.update(file).update("\0").update(content).update("\0");
  }
  return hash.digest("hex");
}
