/**
 * Directories held open, and names looked up inside them. On Linux a name is looked up through the held
 * handle (`/proc/self/fd/<fd>/<name>`): the kernel resolves it in the very directory that was opened, so a
 * directory on the way swapped for a symbolic link cannot redirect the lookup. Where there is no /proc
 * (other systems, or Linux without /proc mounted) a name is looked up by the directory's real path, which
 * leaves that race open; docs/workspace.md says what this means.
 */
import { constants, existsSync } from "node:fs";
import { open, readlink, type FileHandle } from "node:fs/promises";
import path from "node:path";

/** Whether names can be looked up through a held handle (Linux with /proc). */
export const lookupThroughHandles = process.platform === "linux" && existsSync("/proc/self/fd");

/** Never follows a link in the last place, never blocks on a FIFO or device that was swapped in. */
const NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
export const FILE_FLAGS = NO_FOLLOW;
export const DIRECTORY_FLAGS = NO_FOLLOW | (constants.O_DIRECTORY ?? 0);

/** An open directory and the real path it had when it was opened. */
export interface HeldDirectory {
  handle: FileHandle;
  realPath: string;
}

/** The path that names `name` inside `directory`: through its handle where the system allows it. */
export function pathInside(directory: HeldDirectory, name: string): string {
  return lookupThroughHandles ? `${handlePath(directory.handle)}/${name}` : path.join(directory.realPath, name);
}

/** The path that reaches the open handle itself (Linux), or the real path it was opened at. */
export function pathOfHandle(held: HeldDirectory): string {
  return lookupThroughHandles ? handlePath(held.handle) : held.realPath;
}

/** Opens the workspace root (a real path, trusted as given). */
export async function openRootDirectory(root: string): Promise<HeldDirectory> {
  return { handle: await open(root, DIRECTORY_FLAGS), realPath: root };
}

/** Opens `name` inside `directory`; a symbolic link there fails with ELOOP, a non-directory with ENOTDIR. */
export async function openInside(directory: HeldDirectory, name: string, flags: number): Promise<FileHandle> {
  return await open(pathInside(directory, name), flags);
}

/**
 * Whether `handle` is still at `realPath`. On Linux the kernel knows where an open file is now: a file
 * whose directory was moved out of the workspace after it was opened is not where it was checked. Where
 * the system cannot tell, this says yes.
 */
export async function stillAt(handle: FileHandle, realPath: string): Promise<boolean> {
  if (!lookupThroughHandles) return true;
  try {
    return (await readlink(handlePath(handle))) === realPath;
  } catch {
    return false;
  }
}

function handlePath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}
