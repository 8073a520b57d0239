/**
 * The workspace boundary: turns a path a model sent into the real path of something inside the workspace,
 * or refuses it. Every path is first resolved by name against the workspace root, then walked one name at
 * a time from the real root, following each symbolic link by hand; a step that would leave the root is
 * refused before anything outside it is looked at, so the answer never depends on (and never reveals)
 * what exists outside. Each name is looked up inside the directory the walk holds open (see
 * held-directory.ts), so a directory on the way swapped for a link cannot carry the walk out mid-way.
 * See docs/workspace.md for the rules and the reasons.
 */
import { lstat, readlink, realpath, type FileHandle } from "node:fs/promises";
import type { BigIntStats } from "node:fs";
import path from "node:path";
import { ToolInputError } from "../execution/tool-input-error.js";
import { DIRECTORY_FLAGS, openInside, openRootDirectory, pathInside, type HeldDirectory } from "./held-directory.js";

/** Linux's own limit on symbolic links followed while resolving one path (MAXSYMLINKS). */
const MAX_SYMLINK_HOPS = 40;

/** A last name of "" or "." after a separator: what only a directory can be. */
const DIRECTORY_ENDING = path.sep === "\\" ? /[/\\]\.?$/ : /\/\.?$/;

/** A path confined to the workspace, as it was when it was checked. */
export interface ConfinedPath {
  /** The real workspace root. */
  root: string;
  /** The real path of the target: no symbolic link anywhere in it, inside `root`. */
  realPath: string;
  /** `realPath` relative to `root` with `/` separators; `""` for the root itself. */
  relative: string;
  /** `lstat` of `realPath` at check time; `openConfined` compares the opened file's identity with it. */
  stats: BigIntStats;
}

export type WorkspaceErrorCode = "outside" | "loop" | "missing" | "not_a_directory" | "changed" | "inaccessible";

/** A path the workspace refuses or cannot reach. Its message names the path the model gave, never an outside target. */
export class WorkspaceError extends Error {
  constructor(readonly code: WorkspaceErrorCode, message: string) {
    super(message);
    this.name = "WorkspaceError";
  }
}

/** The path as the model wrote it, quoted and kept short so a hostile path cannot flood or fake a message. */
export function quotePath(requested: string): string {
  const max = 200;
  const cut = requested.length > max ? `${requested.slice(0, max)}…` : requested;
  return JSON.stringify(cut);
}

/**
 * Whether `requested` can only name a directory: it ends with "/" (or "/."), which resolving by name drops.
 * POSIX resolves such a path only to a directory (a file there is ENOTDIR), and so does the walk.
 */
export function namesDirectory(requested: string): boolean {
  return DIRECTORY_ENDING.test(requested);
}

/**
 * Resolves `requested` (relative to the workspace, or absolute) to a real path inside the workspace.
 * Throws a `WorkspaceError`: `outside` for `..` or absolute paths that leave the root and for symbolic
 * links (anywhere along the path) that lead out of it, `loop` for a symbolic link loop (also reported as
 * outside the workspace), `missing` (ENOENT), `not_a_directory` (ENOTDIR, also for a path ending in "/"
 * that leads to a file), `inaccessible` (any other error, e.g. EACCES).
 */
export async function confineToWorkspace(workspace: string, requested: string): Promise<ConfinedPath> {
  return await walkInside(workspace, requested, false);
}

/**
 * Where a path that need not exist yet leads: what exists of it, walked as `confineToWorkspace` walks it
 * (links followed inside, every escape refused the same way). `missing` is empty when the target exists;
 * otherwise `existing` is the deepest directory that does, and `missing` the names still to create under
 * it, the file's last (a link inside whose target does not exist leads to its target).
 */
export interface WriteTarget {
  existing: ConfinedPath;
  missing: string[];
}

/** `confineToWorkspace` for a path a tool will create or replace: a missing tail is no error. */
export async function confineForWriting(workspace: string, requested: string): Promise<WriteTarget> {
  const found = await walkInside(workspace, requested, true);
  return "missing" in found ? found : { existing: found, missing: [] };
}

async function walkInside(workspace: string, requested: string, mayEndEarly: false): Promise<ConfinedPath>;
async function walkInside(workspace: string, requested: string, mayEndEarly: true): Promise<ConfinedPath | WriteTarget>;
async function walkInside(workspace: string, requested: string, mayEndEarly: boolean): Promise<ConfinedPath | WriteTarget> {
  const given = path.resolve(workspace);
  const root = await realpath(given);
  if (requested.includes("\0")) {
    throw new WorkspaceError("outside", `The path ${quotePath(requested)} contains a NUL character, which no file name can hold.`);
  }
  const outside = (): WorkspaceError => outsideError(requested, root);
  const directoryOnly = namesDirectory(requested);
  // Whether the last link met at the end of the path ends in "/": the walk's end must then be a directory too.
  let linkNamesDirectory = false;
  // The workspace may have been given through a symbolic link; paths under either spelling are inside.
  const insideParts = (absolute: string): string[] | undefined => partsUnder(root, absolute) ?? partsUnder(given, absolute);

  const start = insideParts(path.resolve(root, requested));
  if (start === undefined) throw outside();
  // A stack of the names still to walk, the next one last.
  const pending = start.reverse();
  const rootDirectory = await openRoot(root, requested);
  // The directory the walk is in, held open: each name is looked up inside it, not by a path.
  let current = rootDirectory;
  const leave = async (): Promise<void> => {
    if (current !== rootDirectory) await current.handle.close();
  };
  try {
    const rootStats = await current.handle.stat({ bigint: true });
    let hops = 0;
    for (let part = pending.pop(); part !== undefined; part = pending.pop()) {
      const inside = pathInside(current, part);
      const stats = await lstatInside(inside, requested, root, mayEndEarly);
      if (stats === undefined) {
        // What a dangling link ending in "/" names can only be made a directory, never the file a tool would write.
        if (linkNamesDirectory) throw danglingLinkSlashError(requested, root);
        const existing = confined(root, current.realPath, await current.handle.stat({ bigint: true }));
        return { existing, missing: [part, ...pending.reverse()] };
      }
      if (stats.isSymbolicLink()) {
        hops += 1;
        if (hops > MAX_SYMLINK_HOPS) {
          throw new WorkspaceError("loop",
            `The path ${quotePath(requested)} is outside the workspace ${root}: it runs through a loop of symbolic links, so it leads nowhere inside it.`);
        }
        // The link's text is resolved by name against the real directory holding it, then walked from the
        // root again: a link that points out is refused without looking at where it points.
        const linkText = await readLinkInside(inside, requested, root);
        const target = insideParts(path.resolve(current.realPath, linkText));
        if (target === undefined) throw outside();
        // Resolving by name drops the "/" a link's text may end with; POSIX then resolves the path only to a directory.
        if (pending.length === 0 && namesDirectory(linkText)) linkNamesDirectory = true;
        pending.push(...target.reverse());
        await leave();
        current = rootDirectory;
        continue;
      }
      const realPath = path.join(current.realPath, part);
      if (pending.length === 0) {
        if (directoryOnly && !stats.isDirectory()) throw trailingSlashError(requested, root);
        if (linkNamesDirectory && !stats.isDirectory()) throw linkSlashError(requested, root);
        return confined(root, realPath, stats);
      }
      if (!stats.isDirectory()) throw accessError({ code: "ENOTDIR" }, requested, root);
      const handle = await openInsideOrFail(current, part, DIRECTORY_FLAGS, requested, root);
      await leave();
      current = { handle, realPath };
    }
    // Only the root itself (or a link to it) ends the walk with no name left.
    return confined(root, root, rootStats);
  } finally {
    await leave();
    await rootDirectory.handle.close();
  }
}

/** The refusals the model's own path causes: it can fix them. The others (EACCES, a swap mid-walk) are the tool's. */
const ARGUMENT_CODES: ReadonlySet<WorkspaceErrorCode> = new Set(["outside", "loop", "missing", "not_a_directory"]);

/**
 * `confineToWorkspace` for a tool's argument `parameter`: a path outside the workspace (a symbolic link
 * loop included), a missing one, or one that runs through a file is the argument's fault, thrown as a
 * `ToolInputError` naming the parameter; every other problem (EACCES, …) is thrown as it is, a failure
 * of the tool.
 */
export async function confineArgument(workspace: string, requested: string, parameter: string): Promise<ConfinedPath> {
  try {
    return await confineToWorkspace(workspace, requested);
  } catch (error) {
    if (error instanceof WorkspaceError && ARGUMENT_CODES.has(error.code)) throw new ToolInputError(error.message, { parameter, cause: error });
    throw error;
  }
}

function outsideError(requested: string, root: string): WorkspaceError {
  return new WorkspaceError("outside",
    `The path ${quotePath(requested)} is outside the workspace ${root}. Only files inside it can be used: give a path relative to it (or an absolute path under it).`);
}

/** The names leading from `base` to `absolute` (both normalized), or `undefined` when it is not under `base`. */
function partsUnder(base: string, absolute: string): string[] | undefined {
  if (absolute === base) return [];
  const prefix = base.endsWith(path.sep) ? base : base + path.sep;
  if (!absolute.startsWith(prefix)) return undefined;
  return absolute.slice(prefix.length).split(path.sep).filter((part) => part !== "");
}

function confined(root: string, realPath: string, stats: BigIntStats): ConfinedPath {
  return { root, realPath, relative: path.relative(root, realPath).split(path.sep).join("/"), stats };
}

async function openRoot(root: string, requested: string): Promise<HeldDirectory> {
  try {
    return await openRootDirectory(root);
  } catch (error) {
    throw accessError(error, requested, root);
  }
}

/** `lstat` inside the workspace; a missing name is `undefined` when the walk may end early, else an error. */
async function lstatInside(target: string, requested: string, root: string, mayBeMissing: boolean): Promise<BigIntStats | undefined> {
  try {
    return await lstat(target, { bigint: true });
  } catch (error) {
    if (mayBeMissing && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw accessError(error, requested, root);
  }
}

/** A link's text; a link that is no longer one (EINVAL) changed since it was looked at. */
async function readLinkInside(target: string, requested: string, root: string): Promise<string> {
  try {
    return await readlink(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EINVAL") throw changedError(requested, root);
    throw accessError(error, requested, root);
  }
}

/**
 * Opens `name` inside a held directory, for the walk, the open of what was checked and the listing. A
 * link (ELOOP), a non-directory where a directory was (ENOTDIR), nothing (ENOENT) or an unopenable device
 * (ENXIO) is not what was looked at a moment before: `changed`.
 */
export async function openInsideOrFail(
  directory: HeldDirectory, name: string, flags: number, requested: string, root: string,
): Promise<FileHandle> {
  try {
    return await openInside(directory, name, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOENT" || code === "ENOTDIR" || code === "ENXIO") throw changedError(requested, root);
    throw accessError(error, requested, root);
  }
}

/** The message for a name that changed between being looked at and being opened. */
export function changedError(requested: string, root: string): WorkspaceError {
  return new WorkspaceError("changed",
    `${quotePath(requested)} changed while it was being opened (it is no longer what was checked inside the workspace ${root}); nothing was read. Try again.`);
}

/** A path ending in "/" that leads to something other than a directory: ENOTDIR, as POSIX has it. */
function trailingSlashError(requested: string, root: string): WorkspaceError {
  return new WorkspaceError("not_a_directory",
    `ENOTDIR: ${quotePath(requested)} names a directory (a path ending in "/" does), but it is not one (in the workspace ${root}). Give the path without the trailing "/".`);
}

/** A path whose last link's text ends in "/" (`link -> a.txt/`) and leads to something other than a directory: ENOTDIR. */
function linkSlashError(requested: string, root: string): WorkspaceError {
  return new WorkspaceError("not_a_directory",
    `ENOTDIR: ${quotePath(requested)} is a symbolic link whose target ends in "/", so it names a directory, but what it leads to is not one (in the workspace ${root}).`);
}

/** `linkSlashError` where nothing is there yet: a file cannot be made under a name that can only be a directory's. */
function danglingLinkSlashError(requested: string, root: string): WorkspaceError {
  return new WorkspaceError("not_a_directory",
    `EISDIR: ${quotePath(requested)} is a symbolic link whose target ends in "/", so it names a directory, and no file can be written there (in the workspace ${root}). Give the file's own path.`);
}

/** A message for an `fs` error met inside the workspace; it names the path the model gave, not a resolved one. */
export function accessError(error: unknown, requested: string, root: string): WorkspaceError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const shown = quotePath(requested);
  switch (code) {
    case "ENOENT":
      return new WorkspaceError("missing",
        `ENOENT: no such file or directory: ${shown} (in the workspace ${root}). Use list_files to see what is there.`);
    case "ENOTDIR":
      return new WorkspaceError("not_a_directory",
        `ENOTDIR: ${shown} goes through a file as if it were a directory (in the workspace ${root}).`);
    default:
      return new WorkspaceError("inaccessible", `${code ?? "Error"}: cannot access ${shown} (in the workspace ${root}).`);
  }
}
