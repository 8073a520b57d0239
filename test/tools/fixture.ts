import { accessSync, constants, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runWithToolContext } from "../../src/runtime/execution/tool-context.js";

/** What every outside file holds: a result or message containing it is a leak. */
export const SECRET = "TOP-SECRET-OUTSIDE-CONTENT";

export interface Sandbox {
  /** The temporary directory holding everything below. */
  base: string;
  /** The workspace root (a real path). */
  ws: string;
  /** A directory next to the workspace, with `secret.txt` and `dir/inner.txt`. */
  outside: string;
  /** A sibling whose name starts with the workspace's: `/tmp/x/ws-evil` must not count as inside `/tmp/x/ws`. */
  evil: string;
  /** Runs a tool as the runtime would: inside a tool context for this workspace. */
  call<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  write(relative: string, content: string | Uint8Array): string;
  link(relative: string, target: string): string;
  remove(): void;
}

/** tmpfs when there is one: creating thousands of files there costs a tenth of what it does on disk. */
function scratchDir(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}

export function makeSandbox(): Sandbox {
  const base = realpathSync(mkdtempSync(path.join(scratchDir(), "sigloop-tools-")));
  const ws = path.join(base, "ws");
  const outside = path.join(base, "outside");
  const evil = path.join(base, "ws-evil");
  for (const dir of [ws, path.join(outside, "dir"), evil]) mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(outside, "secret.txt"), `${SECRET}\n`);
  writeFileSync(path.join(outside, "dir", "inner.txt"), `${SECRET} inner\n`);
  writeFileSync(path.join(evil, "x.txt"), `${SECRET} evil\n`);
  const write = (relative: string, content: string | Uint8Array): string => {
    const file = path.join(ws, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
    return file;
  };
  const link = (relative: string, target: string): string => {
    const file = path.join(ws, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    symlinkSync(target, file);
    return file;
  };
  return {
    base, ws, outside, evil, write, link,
    call: (fn, signal = new AbortController().signal) => runWithToolContext({ workspace: ws, signal }, fn),
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** The refusal every escape must get, naming the path the model gave and the workspace root. */
export function outsideMessage(requested: string, ws: string): string {
  return `The path ${JSON.stringify(requested)} is outside the workspace ${ws}. Only files inside it can be used: give a path relative to it (or an absolute path under it).`;
}
