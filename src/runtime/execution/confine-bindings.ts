/**
 * What a schemas file may make sigloop import: only what gen can have written, whatever the file's own
 * records say. A binding must name a tool file of the file's tools folder as gen reads them (a `*.ts`
 * file, not `*.d.ts`, directly in that folder) whose real path, links resolved, stays in that folder. A
 * schemas file is JSON that users pass around; without this, its `bindings` could name any installed
 * module (`node_modules/esbuild/lib/main.js`, export `buildSync`) and its easily forged staleness record
 * would let one call run it.
 */
import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import type { SchemasFile } from "../../shared/schemas-file.js";
import { isToolFileName } from "../../shared/tool-files.js";

/** The first binding that names something other than a tool file of the tools folder, in words, or `undefined`. */
export function findUnconfinedBinding(schemasDir: string, schemas: SchemasFile): string | undefined {
  const toolsDir = path.resolve(schemasDir, schemas.inputs.toolsDir);
  let realToolsDir: string;
  try {
    realToolsDir = realpathSync(toolsDir);
  } catch {
    realToolsDir = toolsDir;
  }
  for (const binding of schemas.bindings) {
    const file = path.resolve(schemasDir, binding.file);
    const inFolder = path.dirname(file) === toolsDir && isToolFileName(path.basename(file));
    if (!inFolder || !staysIn(file, realToolsDir)) {
      return `tool ${binding.name} is bound to ${binding.file}, which is not a tool file of its tools folder ${schemas.inputs.toolsDir} (a *.ts file directly in it, not *.d.ts, as gen reads them), so nothing was imported`;
    }
  }
  return undefined;
}

/**
 * A file that exists must be a regular file whose real path is in the folder (a link out of it is
 * refused). A missing one binds nothing that could run: its tool's call reports the failed import.
 */
function staysIn(file: string, realDir: string): boolean {
  try {
    lstatSync(file);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
  try {
    const real = realpathSync(file);
    return path.dirname(real) === realDir && lstatSync(real).isFile();
  } catch {
    return false;
  }
}
