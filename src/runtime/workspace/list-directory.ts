/**
 * Lists a directory inside the workspace, depth first, each level sorted by name, up to a cap. The
 * directory is opened through `openConfined` and read through its verified handle, and each subdirectory
 * is opened inside the handle of the directory holding it, so a directory swapped for a link after the
 * check cannot get an outside listing in. A directory is streamed, never loaded whole: only the entries
 * that can still be shown are kept. Symbolic links are shown, never descended.
 */
import { opendir } from "node:fs/promises";
import type { Dirent } from "node:fs";
import path from "node:path";
import { accessError, changedError, confineToWorkspace, openInsideOrFail, WorkspaceError, type ConfinedPath } from "./workspace.js";
import { openConfined } from "./open-confined.js";
import { DIRECTORY_FLAGS, pathOfHandle, stillAt, type HeldDirectory } from "./held-directory.js";
import { FirstInOrder } from "./first-in-order.js";
import { fileKind, type FileKind } from "./file-kind.js";
import { isTemporaryName } from "./replace-file.js";

export interface ListingOptions {
  /** 1 lists the directory's own entries; each more level descends one level of subdirectories. */
  depth: number;
  maxEntries: number;
  signal: AbortSignal;
}

export interface Listing {
  /** One line per entry, in order; paths relative to the workspace root. */
  lines: string[];
  /** Entries read but not shown because of the cap. */
  leftOut: number;
  /** Directories within the depth whose contents were not read because the cap was reached. */
  unopened: number;
}

/** Entries fetched from the kernel per read: fewer round trips than the default 32, still small. */
const READ_BATCH = 512;

export async function listDirectory(directory: ConfinedPath, options: ListingOptions): Promise<Listing> {
  const listing: Listing = { lines: [], leftOut: 0, unopened: 0 };
  const { root } = directory;
  const visit = async (held: HeldDirectory, relative: string, level: number): Promise<void> => {
    options.signal.throwIfAborted();
    const canStillOpen = level < options.depth;
    const entries = await firstEntries(held, relative, root, options.maxEntries - listing.lines.length, options.signal, (entry) => {
      listing.leftOut += 1;
      if (canStillOpen && entry.isDirectory()) listing.unopened += 1;
    });
    for (const [index, entry] of entries.entries()) {
      if (listing.lines.length >= options.maxEntries) {
        const rest = entries.slice(index);
        listing.leftOut += rest.length;
        if (canStillOpen) listing.unopened += rest.filter((other) => other.isDirectory()).length;
        return;
      }
      const entryRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
      const kind = fileKind(entry);
      if (kind === "symlink") {
        listing.lines.push(`${showPath(entryRelative)} -> ${await describeLinkTarget(root, entryRelative)}`);
        continue;
      }
      const line = showPath(entryRelative) + kindSuffix(kind);
      listing.lines.push(line);
      if (kind !== "directory" || !canStillOpen) continue;
      if (listing.lines.length >= options.maxEntries) {
        listing.unopened += 1;
        continue;
      }
      const at = listing.lines.length - 1;
      try {
        const child = await openSubdirectory(held, entry.name, entryRelative, root);
        try {
          await visit(child, entryRelative, level + 1);
        } finally {
          await child.handle.close();
        }
      } catch (error) {
        if (!(error instanceof WorkspaceError)) throw error;
        listing.lines[at] = `${line} [could not be listed: ${error.code.replace("_", " ")}]`;
      }
    }
  };
  const handle = await openConfined(directory, directory.relative === "" ? "." : directory.relative);
  try {
    await visit({ handle, realPath: directory.realPath }, directory.relative, 1);
  } finally {
    await handle.close();
  }
  return listing;
}

/** A subdirectory opened inside the handle of its parent, and still where the parent says it is. */
async function openSubdirectory(parent: HeldDirectory, name: string, relative: string, root: string): Promise<HeldDirectory> {
  const realPath = path.join(parent.realPath, name);
  const handle = await openInsideOrFail(parent, name, DIRECTORY_FLAGS, relative, root);
  if (await stillAt(handle, realPath)) return { handle, realPath };
  await handle.close();
  throw changedError(relative, root);
}

/**
 * The first `limit` entries of a held directory in name order, read as a stream; every other entry is
 * passed to `onLeftOut`.
 */
async function firstEntries(
  held: HeldDirectory, relative: string, root: string, limit: number, signal: AbortSignal, onLeftOut: (entry: Dirent) => void,
): Promise<Dirent[]> {
  const first = new FirstInOrder<Dirent>(limit, onLeftOut);
  try {
    for await (const entry of await opendir(pathOfHandle(held), { bufferSize: READ_BATCH })) {
      signal.throwIfAborted();
      // A write's temporary file is not the model's to see, read or write.
      if (!isTemporaryName(entry.name)) first.add(entry);
    }
  } catch (error) {
    if (signal.aborted || typeof (error as NodeJS.ErrnoException).code !== "string") throw error;
    throw accessError(error, relative === "" ? "." : relative, root);
  }
  return first.first();
}

/** Where a link inside the workspace leads, as a workspace path; a link that leads out only says so. */
async function describeLinkTarget(root: string, relative: string): Promise<string> {
  try {
    const target = await confineToWorkspace(root, relative);
    return (target.relative === "" ? "." : showPath(target.relative)) + kindSuffix(fileKind(target.stats));
  } catch (error) {
    if (!(error instanceof WorkspaceError)) throw error;
    switch (error.code) {
      case "outside":
        return "(outside the workspace)";
      case "loop":
        return "(symbolic link loop)";
      case "missing":
      case "not_a_directory":
        return "(broken link)";
      default:
        return "(unreadable)";
    }
  }
}

function kindSuffix(kind: FileKind): string {
  if (kind === "directory") return "/";
  if (kind === "file" || kind === "symlink") return "";
  return ` [${kind}]`;
}

/**
 * A path as shown in a listing: as it is, unless it could be misread (a line break or other control
 * character, a line-break-like separator, spaces at either end, a leading quote, ` -> ` or a trailing
 * `]` that looks like a marker), in which case it is a JSON string literal with those characters escaped.
 */
export function showPath(relative: string): string {
  const misreadable = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|^\s|\s$|^"| -> |\]$/u;
  if (!misreadable.test(relative)) return relative;
  return JSON.stringify(relative).replace(/[\u007f-\u009f\u2028\u2029]/gu,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
