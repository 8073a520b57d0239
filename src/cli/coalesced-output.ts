/**
 * Text written within one turn of the event loop goes to its stream in one write, at the end of that turn
 * (`setImmediate`) or at `flush()`, whichever comes first. An agent turn prints its progress lines (the
 * tokens of the response, the call, its result, the next turn) in one go, and each write to a pipe or a
 * terminal is a system call of its own; the lines still appear before the process waits for anything.
 * The owner calls `flush()` before writing to another stream that may share the terminal, and before it
 * returns.
 */
export interface CoalescedOutput {
  write(text: string): void;
  /** Writes what is waiting, now. */
  flush(): void;
}

export function coalescedOutput(write: (text: string) => void): CoalescedOutput {
  let pending = "";
  let scheduled: NodeJS.Immediate | undefined;
  const flush = (): void => {
    if (scheduled !== undefined) clearImmediate(scheduled);
    scheduled = undefined;
    if (pending === "") return;
    const text = pending;
    pending = "";
    write(text);
  };
  return {
    write(text) {
      if (text === "") return;
      pending += text;
      scheduled ??= setImmediate(flush);
    },
    flush,
  };
}
