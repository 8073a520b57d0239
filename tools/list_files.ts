import { toolContext } from "../src/runtime/execution/tool-context.js";
import { ToolInputError } from "../src/runtime/execution/tool-input-error.js";
import { confineArgument, quotePath } from "../src/runtime/workspace/workspace.js";
import { listDirectory } from "../src/runtime/workspace/list-directory.js";
import { fileKind } from "../src/runtime/workspace/file-kind.js";

/** The most entries one call returns. */
const MAX_ENTRIES = 1000;

/**
 * List the files and directories in a directory of the workspace. Use it to find out what exists before
 * reading a file, or when a path was not found. One entry per line, sorted by name, each a path relative
 * to the workspace root that read_file and list_files accept: directories end with `/`, symbolic links
 * show `link -> target` (or `-> (outside the workspace)`), FIFOs, sockets and devices are marked in
 * brackets, and a name that could be misread (a line break, spaces at either end) is shown as a JSON
 * string. Symbolic links to directories are not descended into. At most 1000 entries; a note at the end
 * says how many were left out.
 *
 * @readOnly
 * @idempotent
 * @openWorld false
 * @param dir The directory, relative to the workspace root ("." for the root itself), or an absolute path inside the workspace.
 * @default "."
 * @param depth How many levels to list: 1 lists only the directory's own entries, 2 also the entries of its subdirectories, and so on.
 * @minimum 1
 * @maximum 10
 * @multipleOf 1
 * @default 1
 */
export async function list_files(dir = ".", depth = 1): Promise<string> {
  const { workspace, signal } = toolContext();
  const directory = await confineArgument(workspace, dir, "dir");
  const kind = fileKind(directory.stats);
  if (kind === "file") throw new ToolInputError(`${quotePath(dir)} is a file, not a directory; use read_file to read it.`, { parameter: "dir" });
  if (kind !== "directory") throw new ToolInputError(`${quotePath(dir)} is a ${kind}, not a directory.`, { parameter: "dir" });
  const { lines, leftOut, unopened } = await listDirectory(directory, { depth, maxEntries: MAX_ENTRIES, signal });
  if (lines.length === 0) return `[list_files: ${quotePath(dir)} is empty.]`;
  if (leftOut === 0 && unopened === 0) return lines.join("\n");
  const more = unopened === 0
    ? `${leftOut} more left out`
    : `at least ${leftOut} more left out (the contents of ${unopened} ${unopened === 1 ? "directory were" : "directories were"} not read)`;
  return `${lines.join("\n")}\n[list_files: ${lines.length} entries shown, ${more}. List a subdirectory, or use a smaller depth, to see the rest.]`;
}
