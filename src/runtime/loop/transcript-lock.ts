/**
 * One run per transcript: the file is held by an exclusive operating-system lock (an open file
 * description lock on Linux, `flock` on macOS, `LockFileEx` on Windows, through fs-native-extensions'
 * prebuilt binding) from before it is read until the run ends, so two runs started
 * together on one `--resume` or `--transcript` file cannot both write into it (the next resume would then
 * replace both real results with "interrupted"). The kernel releases the lock when the process dies,
 * however it dies: no pid file to go stale. A lock is held through its own descriptor, apart from the
 * writer's; such locks conflict between descriptors even within one process. The holder's pid is not
 * named: these locks do not record it.
 */
import { closeSync, constants } from "node:fs";
import { createRequire } from "node:module";
import { openRegularFile } from "../workspace/regular-file.js";

const require = createRequire(import.meta.url);

export interface TranscriptLock {
  release(): void;
}

export type TranscriptLocking = { ok: true; lock: TranscriptLock } | { ok: false; error: string };

/**
 * Locks `file`, creating it first when `create` says so; refuses when another run holds it. Throws the
 * open's error (`NotRegularFileError`, ENOENT for a missing file not to be created, …).
 */
export function lockTranscript(file: string, create: boolean): TranscriptLocking {
  // Read-write: an exclusive record lock needs a descriptor open for writing.
  const fd = openRegularFile(file, constants.O_RDWR | (create ? constants.O_CREAT : 0));
  const { tryLock } = require("fs-native-extensions") as { tryLock(fd: number): boolean };
  let locked: boolean;
  try {
    locked = tryLock(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!locked) {
    closeSync(fd);
    return { ok: false, error: `the transcript ${file} is in use by another sigloop run; wait for it to end, or choose another file` };
  }
  let released = false;
  return {
    ok: true,
    lock: {
      release() {
        if (released) return;
        released = true;
        closeSync(fd);
      },
    },
  };
}
