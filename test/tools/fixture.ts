import { accessSync, constants, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { runWithToolContext } from "../../src/runtime/execution/tool-context.js";
import { ToolInputError } from "../../src/runtime/execution/tool-input-error.js";

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

/**
 * The message of the `ToolInputError` a call rejects its argument with (the model reads it as an argument
 * problem naming `parameter`); anything else it ends with fails the test.
 */
export async function rejected(run: Promise<unknown>, parameter: string): Promise<string> {
  const outcome = await run.then((value: unknown) => ({ value }), (error: unknown) => ({ error }));
  if (!("error" in outcome)) throw new Error(`expected a ToolInputError, got the result ${JSON.stringify(outcome.value)?.slice(0, 300)}`);
  if (!(outcome.error instanceof ToolInputError)) throw outcome.error;
  expect(outcome.error.parameter).toBe(parameter);
  expect(outcome.error.message).not.toContain(SECRET);
  return outcome.error.message;
}
