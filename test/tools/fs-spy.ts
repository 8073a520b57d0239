import { constants } from "node:fs";
import type * as FsPromises from "node:fs/promises";

/**
 * What the tools did on disk, seen through a wrapper around `fs/promises.open` and each opened handle's
 * `read`. A test file installs it with
 * `vi.mock("node:fs/promises", async (original) => (await import("./fs-spy.js")).spiedFsPromises(await original()))`.
 */
export const io = {
  /** Every path opened as a file (not with O_DIRECTORY, as the walk holds directories), in order. */
  opened: [] as string[],
  /** Bytes returned by every `read` on a handle opened since the last reset. */
  bytesRead: 0,
  /**
   * Runs `swap` once, right before the next `open` of a path whose last name is `name` (a directory the
   * walk enters, or what the tool opens after its check): where a test swaps a name.
   */
  beforeOpening: undefined as { name: string; swap: () => void } | undefined,
  /** Runs once, right after the next `read` on a handle: where a test swaps a name in the middle of a read. */
  afterRead: undefined as (() => void) | undefined,
  reset(): void {
    io.opened = [];
    io.bytesRead = 0;
    io.beforeOpening = undefined;
    io.afterRead = undefined;
  },
};

export function spiedFsPromises(actual: typeof FsPromises): typeof FsPromises & { default: typeof FsPromises } {
  const open: typeof actual.open = async (file, flags, mode) => {
    const hook = io.beforeOpening;
    if (hook !== undefined && String(file).endsWith(`/${hook.name}`)) {
      io.beforeOpening = undefined;
      hook.swap();
    }
    if (((Number(flags) || 0) & constants.O_DIRECTORY) === 0) io.opened.push(String(file));
    const handle = await actual.open(file, flags, mode);
    const read = handle.read.bind(handle) as (...args: unknown[]) => Promise<{ bytesRead: number }>;
    Object.assign(handle, {
      read: async (...args: unknown[]) => {
        const result = await read(...args);
        io.bytesRead += result.bytesRead;
        const swap = io.afterRead;
        io.afterRead = undefined;
        swap?.();
        return result;
      },
    });
    return handle;
  };
  return { ...actual, open, default: { ...actual, open } };
}
