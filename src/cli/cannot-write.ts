/**
 * Why the agent cannot write one of its files (the transcript, the cassette), in words for the setup
 * error: `cannot write the transcript /tmp/a/t.jsonl: its folder does not exist (ENOENT)`. The code stays
 * in parentheses for a search; a code without words here is given alone.
 */
import { NotRegularFileError } from "../runtime/workspace/regular-file.js";

/** What an `open(…, O_CREAT)` error means for the file, in words. */
const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: "its folder does not exist",
  ENOTDIR: "a part of its path is a file, not a folder",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  ENAMETOOLONG: "its name is too long",
  ELOOP: "its path has too many symbolic links",
};

export function cannotWriteMessage(what: "transcript" | "cassette", file: string, error: unknown): string {
  // Swapped for a FIFO or device since it was checked: said as that check says it.
  if (error instanceof NotRegularFileError) return `${error.message} (--${what === "cassette" ? "record" : what}): give the path of a new file`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = code === undefined ? undefined : FILE_PROBLEMS[code];
  if (why !== undefined) return `cannot write the ${what} ${file}: ${why} (${code})`;
  return `cannot write the ${what} ${file} (${code ?? (error instanceof Error ? error.message : String(error))})`;
}
