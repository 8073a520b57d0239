/**
 * Opens what `confineToWorkspace` checked, and proves it is the same thing. Between the check and the
 * open, a name can be swapped (a file replaced by a symbolic link, a directory on the way by a link that
 * leads out). So the checked real path is walked again from the root through held directories, each
 * opened without following a link (see held-directory.ts), the last name is opened without following a
 * link and without blocking (O_NONBLOCK: a FIFO or device swapped in cannot hang it), and the handle's
 * device, inode and file type must equal the checked ones, and on Linux the handle must still be at the
 * checked real path, before a single byte is read; otherwise the handle is closed and the call refused.
 */
import { constants } from "node:fs";
import type { BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { DIRECTORY_FLAGS, FILE_FLAGS, openRootDirectory, stillAt, type HeldDirectory } from "./held-directory.js";
import { accessError, changedError, openInsideOrFail, type ConfinedPath } from "./workspace.js";

/**
 * Opens `confined` for reading (a directory with O_DIRECTORY) and verifies its identity.
 * @param requested the path the model gave, for messages.
 * @throws WorkspaceError `changed` when the opened file is not the one that was checked.
 */
export async function openConfined(confined: ConfinedPath, requested: string): Promise<FileHandle> {
  const handle = await openAlongHeldDirectories(confined, requested);
  let verified = false;
  try {
    verified = sameFile(await handle.stat({ bigint: true }), confined.stats) && (await stillAt(handle, confined.realPath));
  } finally {
    if (!verified) await handle.close();
  }
  if (!verified) throw changedError(requested, confined.root);
  return handle;
}

/** Opens the checked path name by name from the root, each name inside the directory opened before it. */
async function openAlongHeldDirectories(confined: ConfinedPath, requested: string): Promise<FileHandle> {
  const names = confined.relative === "" ? [] : confined.relative.split("/");
  const last = names.pop();
  const directory = await holdAlong(confined.root, names, requested);
  if (last === undefined) return directory.handle;
  try {
    return await openInsideOrFail(directory, last, confined.stats.isDirectory() ? DIRECTORY_FLAGS : FILE_FLAGS, requested, confined.root);
  } finally {
    await directory.handle.close();
  }
}

/**
 * Holds the directory `names` lead to from the root, opening each inside the one before it (a name on
 * the way that became a link fails there). The caller closes it.
 */
export async function holdAlong(root: string, names: readonly string[], requested: string): Promise<HeldDirectory> {
  let directory: HeldDirectory;
  try {
    directory = await openRootDirectory(root);
  } catch (error) {
    throw accessError(error, requested, root);
  }
  try {
    for (const name of names) {
      const handle = await openInsideOrFail(directory, name, DIRECTORY_FLAGS, requested, root);
      await directory.handle.close();
      directory = { handle, realPath: path.join(directory.realPath, name) };
    }
  } catch (error) {
    await directory.handle.close();
    throw error;
  }
  return directory;
}

/** The same file system entry: device, inode and file type. */
export function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && fileType(a) === fileType(b);
}

function fileType(stats: BigIntStats): bigint {
  return stats.mode & BigInt(constants.S_IFMT);
}
