/**
 * Files named on the command line (transcripts, schemas) must be regular files: reading `/dev/zero` or
 * appending to `/dev/full` never ends, and opening a FIFO blocks until someone opens its other end. Each
 * path is `stat`ed before it is opened (a FIFO is never opened for that), and opened non-blocking and
 * checked again through its descriptor, so a path swapped for a FIFO or device in between cannot block
 * or flood either.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync, type Stats } from "node:fs";
import { fileKind } from "./file-kind.js";

/** Why `file` cannot be used as a file, e.g. `/dev/zero is a character device, not a regular file`. */
export class NotRegularFileError extends Error {
  readonly code = "ENOTREGULAR";
  constructor(file: string, stats: Stats) {
    super(`${file} is ${describeKind(stats)}, not a regular file`);
    this.name = "NotRegularFileError";
  }
}

/**
 * The problem with `file` if it exists and is not a regular file (a directory, device, FIFO or socket,
 * links followed); `undefined` for a regular file, a missing one, or one that cannot be inspected (its
 * open will say why).
 */
export function nonRegularFileProblem(file: string): string | undefined {
  const stats = statIfNotRegular(file);
  return stats === undefined ? undefined : new NotRegularFileError(file, stats).message;
}

/** Reads a regular file whole; throws `NotRegularFileError` for anything else, or the open's or read's error. */
export function readRegularFile(file: string): string {
  const fd = openRegularFile(file, constants.O_RDONLY);
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens a regular file with `flags` (`O_CREAT` creates a missing one), never blocking: throws
 * `NotRegularFileError` for anything that is not a regular file, before or after opening it.
 */
export function openRegularFile(file: string, flags: number): number {
  const problem = statIfNotRegular(file);
  if (problem !== undefined) throw new NotRegularFileError(file, problem);
  const fd = openSync(file, flags | constants.O_NONBLOCK | constants.O_NOCTTY);
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw new NotRegularFileError(file, stats);
  }
  return fd;
}

/** The last byte of an open regular file (`undefined` when it is empty), read without reading the rest. */
export function lastByte(fd: number): number | undefined {
  const size = fstatSync(fd).size;
  if (size === 0) return undefined;
  const buffer = Buffer.alloc(1);
  return readSync(fd, buffer, 0, 1, size - 1) === 1 ? buffer[0] : undefined;
}

function statIfNotRegular(file: string): Stats | undefined {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch {
    return undefined;
  }
  return stats.isFile() ? undefined : stats;
}

function describeKind(stats: Stats): string {
  const kind = fileKind(stats);
  return kind === "fifo" ? "a FIFO (named pipe)" : `a ${kind}`;
}
