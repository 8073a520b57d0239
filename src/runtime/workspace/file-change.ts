/**
 * What write_file and edit_file would change, and the change itself. A plan confines the path (before
 * anything is asked or changed), reads the current file as read_file does (never opening a device, FIFO
 * or socket), applies the tool's rules and says either why the call is refused or what the file will
 * hold. The approval preview diffs a plan; the tool makes the plan again under the file's lock and writes
 * it with `replaceFile`, so what is written is computed from the file as it is at that moment. The change
 * shown for a call's approval (`shownChangeOf`) is handed by the executor to that one call's run through
 * its tool context, and the call writes only if its change is still the one shown: a file changed, created
 * or retargeted by a link meanwhile is refused, never written with a change nobody saw. Nothing is kept
 * between calls, so a preview never approved affects no later call, and agents in one process share none.
 */
import { createHash } from "node:crypto";
import { takeShownChange } from "../execution/tool-context.js";
import { fileKind } from "./file-kind.js";
import { openConfined } from "./open-confined.js";
import { withPathLock } from "./path-lock.js";
import { replaceFile, targetRealPath } from "./replace-file.js";
import type { ShownChange } from "./shown-change.js";
import {
  countLines, LIMIT_TEXT, lineNumbers, listLines, LISTED_LINES, matchIndexes, MAX_TEXT_BYTES, replaceAt, unwritableTextProblem,
} from "./text-edit.js";
import { confineForWriting, namesDirectory, quotePath, WorkspaceError, type ConfinedPath, type WriteTarget } from "./workspace.js";

/** A planned change: the target, its text now (`undefined` for a new file), what it will hold, and the result to report. */
export interface FileChange {
  tool: "write_file" | "edit_file";
  /** The call this plan is for (tool, workspace and arguments), hashed: the same for the preview and the run. */
  call: string;
  target: WriteTarget;
  /** The target relative to the workspace root (a link followed: its target). */
  relative: string;
  before: CurrentText | undefined;
  after: string;
  /** What the tool returns once the change is written. */
  done: string;
}

export type Plan = { refusal: string } | FileChange;

/** An existing file's text, or why it has none to show. */
export type CurrentText = { text: string } | { binary: string } | { tooLarge: number };

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export async function planWrite(workspace: string, requested: string, content: string): Promise<Plan> {
  const problem = unwritableTextProblem(content);
  if (problem !== undefined) return { refusal: `The content was not written: ${problem}.` };
  const bytes = Buffer.byteLength(content, "utf8");
  if (bytes > MAX_TEXT_BYTES) {
    return { refusal: `The content is ${bytes} bytes of UTF-8, above write_file's limit of ${LIMIT_TEXT}, so nothing was written.` };
  }
  const target = await confine(workspace, requested, "write_file");
  if ("refusal" in target) return target;
  const current = await existingFile(target, requested, "write_file");
  if (current !== undefined && "refusal" in current) return current;
  const lines = countLines(content);
  const verb = current === undefined ? "created" : "replaced";
  return {
    tool: "write_file",
    call: callKey("write_file", workspace, requested, content),
    target,
    relative: relativeOf(target),
    before: current === undefined ? undefined : await readCurrentText(current, requested),
    after: content,
    done: `${verb} ${quotePath(requested)}: ${bytes} byte${bytes === 1 ? "" : "s"}, ${lines} line${lines === 1 ? "" : "s"}.`,
  };
}

export async function planEdit(workspace: string, requested: string, oldText: string, newText: string, replaceAll: boolean): Promise<Plan> {
  if (oldText === "") return { refusal: "old_text is empty, so there is nothing to find. Give the exact text to replace; to write a whole file, use write_file." };
  if (oldText === newText) return { refusal: "old_text and new_text are the same, so the edit would change nothing." };
  const problem = unwritableTextProblem(newText);
  if (problem !== undefined) return { refusal: `new_text cannot be written: ${problem}.` };
  const newBytes = Buffer.byteLength(newText, "utf8");
  if (newBytes > MAX_TEXT_BYTES) return { refusal: `new_text is ${newBytes} bytes of UTF-8, above edit_file's limit of ${LIMIT_TEXT}, so nothing was changed.` };
  const target = await confine(workspace, requested, "edit_file");
  if ("refusal" in target) return target;
  const shown = quotePath(requested);
  if (target.missing.length > 0) {
    return { refusal: `${shown} does not exist (in the workspace ${target.existing.root}), so there is nothing to edit. Use write_file to create it, or list_files to see what is there.` };
  }
  const current = await existingFile(target, requested, "edit_file");
  if (current === undefined || "refusal" in current) return current ?? { refusal: `${shown} does not exist.` };
  const before = await readCurrentText(current, requested);
  if ("tooLarge" in before) return { refusal: `${shown} is ${before.tooLarge} bytes, above edit_file's limit of ${LIMIT_TEXT}, so it cannot be edited.` };
  if ("binary" in before) return { refusal: `${shown} looks like a binary file (${before.binary}); edit_file only changes text files.` };
  const text = before.text;
  const found = matchIndexes(text, oldText);
  if (found.length === 0) return { refusal: notFoundMessage(shown, text, oldText) };
  const lines = lineNumbers(text, found.subarray(0, LISTED_LINES));
  if (found.length > 1 && !replaceAll) {
    return {
      refusal: `old_text occurs ${found.length} times in ${shown}, starting on lines ${listLines(lines, found.length)}, so nothing was changed. Send a longer old_text that occurs once, or set replace_all to true to replace all ${found.length}.`,
    };
  }
  // Counted before the text is built: a refused edit costs no copy of the file.
  const afterBytes = Buffer.byteLength(text, "utf8") + found.length * (newBytes - Buffer.byteLength(oldText, "utf8"));
  if (afterBytes > MAX_TEXT_BYTES) {
    return { refusal: `The edited file would be ${afterBytes} bytes, above edit_file's limit of ${LIMIT_TEXT}, so nothing was changed.` };
  }
  const after = replaceAt(text, found, oldText.length, newText);
  const where = found.length === 1 ? `on line ${lines[0]}` : `starting on lines ${listLines(lines, found.length)}`;
  return {
    tool: "edit_file",
    call: callKey("edit_file", workspace, requested, oldText, newText, String(replaceAll)),
    target,
    relative: relativeOf(target),
    before,
    after,
    done: `edited ${shown}: ${found.length} replacement${found.length === 1 ? "" : "s"}, ${where}.`,
  };
}

/**
 * Makes the plan again under the target's lock and writes it: calls on the same real path run one after
 * the other, each on the file the one before left. When this call's approval showed a change (handed over
 * in its tool context, taken once), it writes only if the change it would make now is that one.
 */
export async function applyChange(requested: string, plan: () => Promise<Plan>, signal: AbortSignal): Promise<string> {
  const shown = takeShownChange();
  const first = await plan();
  if ("refusal" in first) return first.refusal;
  return await withPathLock(targetRealPath(first.target), async () => {
    const fresh = await plan();
    if ("refusal" in fresh) return fresh.refusal;
    if (shown !== undefined && shown.call === fresh.call && shown.fingerprint !== fingerprint(fresh)) {
      return `${quotePath(requested)} changed after its change was shown for approval, so nothing was written: the change approved is not the one it would make now. Call ${fresh.tool} again to see the change against the file as it is now.`;
    }
    await replaceFile(fresh.target, requested, Buffer.from(fresh.after, "utf8"), signal);
    return fresh.done;
  });
}

/** What the approval of `change`'s call shows: the call's write must be this very change. */
export function shownChangeOf(change: FileChange): ShownChange {
  return { call: change.call, fingerprint: fingerprint(change) };
}

function callKey(...parts: string[]): string {
  const hash = createHash("sha256");
  // Each part prefixed with its length, so no two argument lists hash the same text.
  for (const part of parts) hash.update(`${part.length}:`).update(part);
  return hash.digest("hex");
}

/** What a change would do: its real target, the file it replaces and the new text. */
function fingerprint(change: FileChange): string {
  const { before } = change;
  const stats = change.target.existing.stats;
  // A file not shown (binary, too large) is known by its identity and last change instead of its text.
  const current = before === undefined ? "new" : "text" in before ? `text:${before.text}` : `file:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`;
  return callKey(change.relative, current, change.after);
}

/** An existing file's text, read through `openConfined`; at most the limit and one byte more is read. */
export async function readCurrentText(file: ConfinedPath, requested: string): Promise<CurrentText> {
  if (file.stats.size > BigInt(MAX_TEXT_BYTES)) return { tooLarge: Number(file.stats.size) };
  const handle = await openConfined(file, requested);
  try {
    // Sized from the file's length (one byte more shows that it grew), grown only if it did: a buffer of
    // the whole limit per call would be 10 MB to allocate and fill for any file, a collector pause with it.
    let buffer = Buffer.allocUnsafe(Math.min(Number(file.stats.size), MAX_TEXT_BYTES) + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length <= MAX_TEXT_BYTES; length += read) {
      if (length === buffer.length) buffer = Buffer.concat([buffer], Math.min(buffer.length * 2, MAX_TEXT_BYTES + 1));
      ({ bytesRead: read } = await handle.read(buffer, length, buffer.length - length, length));
    }
    if (length > MAX_TEXT_BYTES) return { tooLarge: length };
    const bytes = buffer.subarray(0, length);
    const nul = bytes.indexOf(0);
    if (nul !== -1) return { binary: `it contains a NUL byte, in line ${lineNumbers(bytes.toString("latin1"), [nul])[0]}` };
    try {
      return { text: utf8.decode(bytes) };
    } catch {
      return { binary: "it is not valid UTF-8" };
    }
  } finally {
    await handle.close();
  }
}

async function confine(workspace: string, requested: string, tool: FileChange["tool"]): Promise<WriteTarget | { refusal: string }> {
  // Resolving by name drops a trailing "/", which would make "a.txt/" write the file a.txt.
  if (namesDirectory(requested)) {
    const nothing = tool === "write_file" ? "nothing was written" : "nothing was changed";
    return { refusal: `${quotePath(requested)} names a directory (a path ending in "/" does), and ${tool} changes files only, so ${nothing}. Give the file's path without the trailing "/".` };
  }
  try {
    return await confineForWriting(workspace, requested);
  } catch (error) {
    // The path's own faults, as read_file reports them as argument problems: the model can fix them.
    if (error instanceof WorkspaceError && (error.code === "outside" || error.code === "loop" || error.code === "not_a_directory")) return { refusal: error.message };
    throw error;
  }
}

/** The existing file a target names (`undefined` for a new one), or why a file tool will not change it. */
async function existingFile(target: WriteTarget, requested: string, tool: string): Promise<ConfinedPath | { refusal: string } | undefined> {
  if (target.missing.length > 0) return undefined;
  const shown = quotePath(requested);
  const kind = fileKind(target.existing.stats);
  if (kind === "file") return target.existing;
  if (kind === "directory") return { refusal: `${shown} is a directory; ${tool} changes files only.` };
  return { refusal: `${shown} is a ${kind}, not a regular file; ${tool} does not open devices, FIFOs or sockets.` };
}

function relativeOf(target: WriteTarget): string {
  return [target.existing.relative, ...target.missing].filter((part) => part !== "").join("/");
}

function notFoundMessage(shown: string, text: string, oldText: string): string {
  const crlf = text.includes("\r\n") && oldText.includes("\n") && !oldText.includes("\r\n")
    ? " The file's lines end with CRLF (\\r\\n), and old_text's with \\n only."
    : "";
  return `old_text was not found in ${shown}, so nothing was changed. It must match the file exactly, byte for byte (spaces, tabs and line breaks included): read the file again and copy the text.${crlf}`;
}
