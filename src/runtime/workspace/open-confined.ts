/**
 * Opens what `confineToWorkspace` checked, and proves it is the same thing. Between the check and the
 * open, a name can be swapped (a file replaced by a symbolic link, a directory on the way by a link that
 * leads out). The open refuses a symbolic link in the last place (O_NOFOLLOW), never blocks (O_NONBLOCK:
 * a FIFO or device swapped in cannot hang it), and the opened handle's device and inode must equal the
 * checked ones before a single byte is read; otherwise the handle is closed and the call refused.
 */
import { constants } from "node:fs";
import type { BigIntStats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { accessError, quotePath, WorkspaceError, type ConfinedPath } from "./workspace.js";

/**
 * Opens `confined` for reading (a directory with O_DIRECTORY) and verifies its identity.
 * @param requested the path the model gave, for messages.
 * @throws WorkspaceError `changed` when the opened file is not the one that was checked.
 */
export async function openConfined(confined: ConfinedPath, requested: string): Promise<FileHandle> {
  const directory = confined.stats.isDirectory() ? (constants.O_DIRECTORY ?? 0) : 0;
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | directory;
  let handle: FileHandle;
  try {
    handle = await open(confined.realPath, flags);
  } catch (error) {
    // A link, nothing, or a non-directory at the checked name now: not what was checked.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOENT" || code === "ENOTDIR" || code === "ENXIO") throw changedError(requested, confined.root);
    throw accessError(error, requested, confined.root);
  }
  let opened: BigIntStats;
  try {
    opened = await handle.stat({ bigint: true });
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (!sameFile(opened, confined.stats)) {
    await handle.close();
    throw changedError(requested, confined.root);
  }
  return handle;
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && fileType(a) === fileType(b);
}

function fileType(stats: BigIntStats): bigint {
  return stats.mode & BigInt(constants.S_IFMT);
}

function changedError(requested: string, root: string): WorkspaceError {
  return new WorkspaceError("changed",
    `${quotePath(requested)} changed while it was being opened (it is no longer what was checked inside the workspace ${root}); nothing was read. Try again.`);
}
