/**
 * Crash-safe replacement of a file inside the workspace. The new content goes to a temporary file in the
 * target's own directory (held open, reached name by name from the root as `openConfined` does), is
 * flushed, and is renamed over the target; then the directory is flushed. A process killed at any moment
 * leaves the old file or the new one, never a mix. The temporary file's name is derived from the target's
 * (`.sigloop-write-<hash>.tmp`), so the next write to the same target removes one a killed process left
 * behind, and `list_files` hides it. Every step works inside the held directory, so a directory on the
 * way swapped for a link cannot carry the write out of the workspace. docs/workspace.md has the rules.
 */
import { createHash } from "node:crypto";
import { constants, type BigIntStats } from "node:fs";
import { lstat, mkdir, open, rename, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { DIRECTORY_FLAGS, pathInside, stillAt, type HeldDirectory } from "./held-directory.js";
import { holdAlong, sameFile } from "./open-confined.js";
import { accessError, changedError, openInsideOrFail, WorkspaceError, type WriteTarget } from "./workspace.js";

const TEMPORARY_NAME = /^\.sigloop-write-[0-9a-f]{16}\.tmp$/;

/** The temporary file a write to `name` uses, in the same directory. */
export function temporaryNameFor(name: string): string {
  return `.sigloop-write-${createHash("sha256").update(name).digest("hex").slice(0, 16)}.tmp`;
}

/** Whether a directory entry is a write's temporary file (hidden from listings). */
export function isTemporaryName(name: string): boolean {
  return TEMPORARY_NAME.test(name);
}

/** The real path a write target names: the existing file, or the one to create. */
export function targetRealPath(target: WriteTarget): string {
  return path.join(target.existing.realPath, ...target.missing);
}

/**
 * Writes `content` to `target` atomically. An existing target must still be the file that was checked
 * (same device and inode), and keeps its owner, where the process may set it, and its mode but for the
 * setuid and setgid bits, cleared as write(2) clears them (new content must not run with the privileges
 * given to the old); a new one gets what `open(2)` gives (0666 less the umask), and missing directories
 * on the way are made.
 * @param requested the path the model gave, for messages.
 * @throws WorkspaceError `changed` when the target or a directory on the way is no longer what was checked.
 */
export async function replaceFile(target: WriteTarget, requested: string, content: Uint8Array, signal: AbortSignal): Promise<void> {
  const { root } = target.existing;
  const creating = target.missing.length > 0;
  const realPath = targetRealPath(target);
  // The directory to hold first: the deepest existing one when creating, else the file's own.
  const held = creating ? target.existing.realPath : path.dirname(realPath);
  let directory = await holdAlong(root, path.relative(root, held).split(path.sep).filter((name) => name !== ""), requested);
  try {
    if (creating) {
      if (!sameFile(await directory.handle.stat({ bigint: true }), target.existing.stats)) throw changedError(requested, root);
      for (const name of target.missing.slice(0, -1)) directory = await makeDirectoryInside(directory, name, requested, root);
    }
    if (!(await stillAt(directory.handle, path.dirname(realPath)))) throw changedError(requested, root);
    const name = path.basename(realPath);
    const current = await entryInside(directory, name, requested, root);
    if (creating ? current !== undefined : current === undefined || !sameFile(current, target.existing.stats)) {
      throw changedError(requested, root);
    }
    signal.throwIfAborted();
    await writeThenRename(directory, name, content, current, requested, root);
  } finally {
    await directory.handle.close();
  }
}

/** Makes `name` inside a held directory (or finds one made meanwhile) and holds it instead. */
async function makeDirectoryInside(parent: HeldDirectory, name: string, requested: string, root: string): Promise<HeldDirectory> {
  try {
    await mkdir(pathInside(parent, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw accessError(error, requested, root);
  }
  const handle = await openInsideOrFail(parent, name, DIRECTORY_FLAGS, requested, root);
  await parent.handle.close();
  return { handle, realPath: path.join(parent.realPath, name) };
}

async function entryInside(directory: HeldDirectory, name: string, requested: string, root: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(pathInside(directory, name), { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw accessError(error, requested, root);
  }
}

async function writeThenRename(
  directory: HeldDirectory, name: string, content: Uint8Array, replaced: BigIntStats | undefined, requested: string, root: string,
): Promise<void> {
  const temporary = pathInside(directory, temporaryNameFor(name));
  // One a killed write left behind; a live write of another process loses its rename and fails as `changed`.
  await unlink(temporary).catch(() => undefined);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
  let created = false;
  try {
    // A replacement starts private and gets the old mode before it has a name anyone reads.
    const handle = await open(temporary, flags, replaced === undefined ? 0o666 : 0o600);
    created = true;
    try {
      await handle.writeFile(content);
      if (replaced !== undefined) await keepOwnerAndMode(handle, replaced);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (!(await stillAt(directory.handle, directory.realPath))) throw changedError(requested, root);
    await rename(temporary, pathInside(directory, name));
    created = false;
    await directory.handle.sync();
  } catch (error) {
    if (created) await unlink(temporary).catch(() => undefined);
    if (error instanceof WorkspaceError || typeof (error as NodeJS.ErrnoException).code !== "string") throw error;
    throw accessError(error, requested, root);
  }
}

async function keepOwnerAndMode(handle: FileHandle, replaced: BigIntStats): Promise<void> {
  const ownStats = await handle.stat({ bigint: true });
  if (ownStats.uid !== replaced.uid || ownStats.gid !== replaced.gid) {
    // Only a privileged process may give a file away; otherwise the replacement is the writer's own.
    await handle.chown(Number(replaced.uid), Number(replaced.gid)).catch(() => undefined);
  }
  await handle.chmod(Number(replaced.mode & KEPT_MODE_BITS));
}

/** The permission bits and the sticky bit; not S_ISUID and S_ISGID (0o6000). */
const KEPT_MODE_BITS = 0o1777n;
