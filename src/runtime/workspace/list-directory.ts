/**
 * Lists a directory inside the workspace, depth first, each level sorted by name, up to a cap. Every
 * directory is opened through `openConfined` and read through its verified handle, so a directory swapped
 * for a link after the check cannot get an outside listing in. Symbolic links are shown, never descended.
 */
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import type { Dirent } from "node:fs";
import { confineToWorkspace, WorkspaceError, type ConfinedPath } from "./workspace.js";
import { openConfined } from "./open-confined.js";
import { fileKind, type FileKind } from "./file-kind.js";

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

/** On Linux a directory handle can be read through /proc, so the listing comes from what was verified. */
const readThroughHandle = process.platform === "linux" && existsSync("/proc/self/fd");

export async function listDirectory(directory: ConfinedPath, options: ListingOptions): Promise<Listing> {
  const listing: Listing = { lines: [], leftOut: 0, unopened: 0 };
  const visit = async (dir: ConfinedPath, level: number): Promise<void> => {
    options.signal.throwIfAborted();
    const entries = await readVerified(dir);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const [index, entry] of entries.entries()) {
      if (listing.lines.length >= options.maxEntries) {
        const rest = entries.slice(index);
        listing.leftOut += rest.length;
        if (level < options.depth) listing.unopened += rest.filter((other) => other.isDirectory()).length;
        return;
      }
      const relative = dir.relative === "" ? entry.name : `${dir.relative}/${entry.name}`;
      const kind = fileKind(entry);
      if (kind === "symlink") {
        listing.lines.push(`${showPath(relative)} -> ${await describeLinkTarget(dir.root, relative)}`);
        continue;
      }
      const line = showPath(relative) + kindSuffix(kind);
      listing.lines.push(line);
      if (kind !== "directory" || level >= options.depth) continue;
      if (listing.lines.length >= options.maxEntries) {
        listing.unopened += 1;
        continue;
      }
      const at = listing.lines.length - 1;
      try {
        await visit(await confineToWorkspace(dir.root, relative), level + 1);
      } catch (error) {
        if (!(error instanceof WorkspaceError)) throw error;
        listing.lines[at] = `${line} [could not be listed: ${error.code.replace("_", " ")}]`;
      }
    }
  };
  await visit(directory, 1);
  return listing;
}

async function readVerified(dir: ConfinedPath): Promise<Dirent[]> {
  const handle = await openConfined(dir, dir.relative === "" ? "." : dir.relative);
  try {
    return await readdir(readThroughHandle ? `/proc/self/fd/${handle.fd}` : dir.realPath, { withFileTypes: true });
  } finally {
    await handle.close();
  }
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
