import { toolContext } from "../src/runtime/execution/tool-context.js";
import { ToolInputError } from "../src/runtime/execution/tool-input-error.js";
import { confineArgument, quotePath } from "../src/runtime/workspace/workspace.js";
import { openConfined } from "../src/runtime/workspace/open-confined.js";
import { readLines, type LinesRead } from "../src/runtime/workspace/read-lines.js";
import { fileKind } from "../src/runtime/workspace/file-kind.js";

/**
 * The most bytes of text one call returns; longer reads go on with `offset`. Well below the executor's cut
 * of a result (50,000 characters; a byte is at most one character), so the note saying which offset
 * reads on always reaches the model, with room for the executor's own notes before the text.
 */
const MAX_RESULT_BYTES = 40_000;

/** Left for the note (and the executor's notes) when a call's share of its turn's result budget is smaller. */
const NOTE_ROOM = 1_000;

/**
 * Read a UTF-8 text file inside the workspace. Use it to look at source code, notes or configuration
 * before answering about them or changing them. Returns the file's text as it is; a result that stops
 * before the end of the file ends with a line `[read_file: ...]` telling which `offset` reads on.
 * A path that is missing or outside the workspace, a binary file, a directory (use list_files), a device,
 * FIFO or socket is refused as an argument problem.
 *
 * @readOnly
 * @idempotent
 * @openWorld false
 * @param path The file, relative to the workspace root (for example "src/index.ts"), or an absolute path inside the workspace.
 * @minLength 1
 * @param offset How many lines to skip before the first line returned; 0 starts at the top of the file.
 * @minimum 0
 * @multipleOf 1
 * @default 0
 * @param limit The most lines to return.
 * @minimum 1
 * @maximum 2000
 * @multipleOf 1
 * @default 2000
 */
export async function read_file(path: string, offset = 0, limit = 2000): Promise<string> {
  const { workspace, signal, maxResultChars } = toolContext();
  const file = await confineArgument(workspace, path, "path");
  const kind = fileKind(file.stats);
  if (kind === "directory") throw new ToolInputError(`${quotePath(path)} is a directory; use list_files to see what is in it.`, { parameter: "path" });
  if (kind !== "file") {
    throw new ToolInputError(`${quotePath(path)} is a ${kind}, not a regular file; read_file does not open devices, FIFOs or sockets.`, { parameter: "path" });
  }
  const handle = await openConfined(file, path);
  try {
    const cap = resultCap(maxResultChars);
    return resultText(path, offset, cap, await readLines(handle, { offset, limit, maxBytes: cap, signal }));
  } finally {
    await handle.close();
  }
}

/**
 * The most bytes this call returns: the cap, or less when the call's share of its turn's result budget
 * (the executor cuts there) is smaller, so that the note saying which offset reads on still reaches the
 * model. A share too small to hold some text and the note is left to the executor's cut.
 */
function resultCap(share: number | undefined): number {
  if (share === undefined || share - NOTE_ROOM >= MAX_RESULT_BYTES || share < 2 * NOTE_ROOM) return MAX_RESULT_BYTES;
  return share - NOTE_ROOM;
}

/** The text the model reads: the lines, then a note when the result stops before the end of the file. */
function resultText(path: string, offset: number, cap: number, read: LinesRead): string {
  const shown = quotePath(path);
  if (read.kind === "binary") {
    const why = read.reason === "nul" ? "it contains a NUL byte" : "it is not valid UTF-8";
    throw new ToolInputError(`${shown} looks like a binary file (${why}, in line ${read.line}); read_file only returns text.`, { parameter: "path" });
  }
  const next = offset + read.lines;
  const withNote = (note: string): string =>
    `${read.text}${read.text === "" || read.text.endsWith("\n") ? "" : "\n"}[read_file: ${note}]`;
  switch (read.stop) {
    case "end":
      if (read.totalLines === 0) return withNote(`${shown} is empty.`);
      if (read.lines === 0) {
        return withNote(`${shown} has ${read.totalLines} line${read.totalLines === 1 ? "" : "s"}; there is nothing after offset ${offset}.`);
      }
      return read.text;
    case "limit":
      return withNote(`lines ${offset + 1}-${next} shown; the file goes on. Call read_file with offset ${next} to read on.`);
    case "bytes":
      return withNote(`lines ${offset + 1}-${next} shown; the result reached its ${cap}-byte cap and the file goes on. Call read_file with offset ${next} to read on.`);
    case "cut-line":
      return withNote(`line ${next} is longer than the ${cap}-byte cap; only its start is shown. Call read_file with offset ${next} to read the lines after it.`);
  }
}
