/**
 * Calls `onChange` shortly after a file is written, replaced or deleted. The file's folder is watched, not
 * the file, so a file replaced by a rename (editors, atomic writers) stays watched; events within
 * `settleMs` of each other make one call, so a file written in several chunks is read once, whole.
 */
import { watch, type FSWatcher } from "node:fs";
import path from "node:path";

export function watchFile(file: string, onChange: () => void, onError: (error: Error) => void, settleMs = 100): () => void {
  const name = path.basename(file);
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path.dirname(file), (_event, changed) => {
      if (changed !== null && changed.toString() !== name) return;
      clearTimeout(timer);
      timer = setTimeout(onChange, settleMs);
    });
    watcher.on("error", onError);
  } catch (error) {
    onError(error instanceof Error ? error : new Error(String(error)));
  }
  return () => {
    clearTimeout(timer);
    watcher?.close();
  };
}
