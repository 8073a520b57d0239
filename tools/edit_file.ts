import { toolContext } from "../src/runtime/execution/tool-context.js";
import { applyChange, planEdit } from "../src/runtime/workspace/file-change.js";

/**
 * Replace an exact piece of text in a UTF-8 text file inside the workspace. `old_text` must match the
 * file byte for byte (spaces, tabs and line breaks included; read the file first) and occur exactly once,
 * unless `replace_all` is true. Nothing else in the file changes: line endings, a byte-order mark and a
 * missing final line break stay as they were. When `old_text` is found zero times or more than once,
 * nothing is changed and the result says how many matches there were and the lines they start on, so a
 * longer, unique piece can be sent. Returns how many replacements were made and on which lines.
 *
 * @destructive
 * @openWorld false
 * @param path The file, relative to the workspace root (for example "src/index.ts"), or an absolute path inside the workspace.
 * @minLength 1
 * @param old_text The exact text to replace, as it is in the file now.
 * @param new_text The text to put in its place (at most 10 MB).
 * @param replace_all Replace every occurrence of `old_text` instead of requiring exactly one.
 * @default false
 */
export async function edit_file(path: string, old_text: string, new_text: string, replace_all = false): Promise<string> {
  const { workspace, signal } = toolContext();
  return await applyChange(path, () => planEdit(workspace, path, old_text, new_text, replace_all), signal);
}
