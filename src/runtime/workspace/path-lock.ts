/**
 * One change at a time per file: calls that change the same real path run one after the other, in the
 * order they asked, so an edit never reads a file another call is about to replace (no lost update).
 * Process-wide, since every tool call of a process shares this module.
 */
const tails = new Map<string, Promise<void>>();

export async function withPathLock<T>(realPath: string, work: () => Promise<T>): Promise<T> {
  const before = tails.get(realPath) ?? Promise.resolve();
  let release = (): void => undefined;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = before.then(() => mine);
  tails.set(realPath, tail);
  await before;
  try {
    return await work();
  } finally {
    release();
    if (tails.get(realPath) === tail) tails.delete(realPath);
  }
}
