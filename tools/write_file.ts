import { toolContext } from "../src/runtime/execution/tool-context.js";
import { applyChange, planWrite } from "../src/runtime/workspace/file-change.js";

/**
 * Create or replace a UTF-8 text file inside the workspace with exactly `content`, making missing parent
 * directories. Use it for new files and for rewriting a file whole; to change part of a file, use
 * edit_file. Returns `created` or `replaced`, the path, bytes and lines. Content with NUL characters,
 * more than 10 MB, a directory, device or FIFO as the target, and paths outside the workspace are refused
 * with a note. The file is replaced atomically: readers see the old content or the new, never a mix.
 *
 * @destructive
 * @openWorld false
 * @param path The file, relative to the workspace root (for example "notes/todo.md"), or an absolute path inside the workspace.
 * @minLength 1
 * @param content The whole new content of the file, as UTF-8 text (at most 10 MB).
 */
export async function write_file(path: string, content: string): Promise<string> {
  const { workspace, signal } = toolContext();
  return await applyChange(path, () => planWrite(workspace, path, content), signal);
}
