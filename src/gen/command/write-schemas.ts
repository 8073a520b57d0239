/**
 * Writing the schemas file, for the one-shot run and `--watch` alike: only when its bytes change, with
 * what went wrong in words (a directory, permissions, a read-only or full disk) instead of an exception.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { relativePath } from "../diagnostic.js";

/**
 * Writes only when the bytes differ, so an unchanged file keeps its timestamp. Bytes are compared, not
 * text: decoding the 3 MB file of 500 tools as UTF-8 to compare strings took twice as long.
 */
export function writeSchemas(outFile: string, text: string): boolean {
  const bytes = Buffer.from(text);
  if (holdsBytes(outFile, bytes)) return false;
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, bytes);
  return true;
}

function holdsBytes(file: string, bytes: Buffer): boolean {
  try {
    return statSync(file).size === bytes.length && readFileSync(file).equals(bytes);
  } catch {
    return false;
  }
}

/** Writes like `writeSchemas`; returns what went wrong, in words, instead of throwing. */
export function writeSchemasOrExplain(outFile: string, text: string, cwd: string): string | undefined {
  try {
    writeSchemas(outFile, text);
    return undefined;
  } catch (error) {
    return `cannot write ${relativePath(cwd, outFile)}: ${writeProblem(error)}`;
  }
}

function writeProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EISDIR") return "it is a directory; give a file path inside it";
  if (code === "EACCES" || code === "EPERM") return "permission denied; choose another --out or fix the folder's permissions";
  if (code === "ENOTDIR" || code === "EEXIST") return "a part of its path is a file, not a folder";
  if (code === "EROFS") return "the file system is read-only";
  if (code === "ENOSPC") return "the disk is full";
  return error instanceof Error ? error.message : String(error);
}
