/** What kind of file system entry something is, in the words the tools' results use. */
export type FileKind = "file" | "directory" | "symlink" | "fifo" | "socket" | "character device" | "block device";

/** Anything with the `is…()` predicates of `fs.Stats`, `fs.BigIntStats` and `fs.Dirent`. */
export interface FileKindSource {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}

export function fileKind(entry: FileKindSource): FileKind {
  if (entry.isFile()) return "file";
  if (entry.isDirectory()) return "directory";
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isFIFO()) return "fifo";
  if (entry.isSocket()) return "socket";
  if (entry.isCharacterDevice()) return "character device";
  return "block device";
}
