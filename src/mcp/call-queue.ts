/**
 * The MCP server's limit on calls running at once, whatever the transport: a client may pipeline
 * thousands of `tools/call` requests, and running them all at once exhausts file descriptors (EMFILE
 * under the usual `ulimit -n 1024`) and memory. Calls beyond the limit wait in arrival order, each
 * answered in its turn; a waiting call costs only its request.
 */

/** The default: the loop's own limit on one turn's parallel tool calls. */
export const DEFAULT_MAX_CONCURRENT_CALLS = 16;

export interface CallQueue {
  /** Runs `task` once fewer than the limit are running; settles as it does. */
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createCallQueue(limit: number): CallQueue {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(task) {
      if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else running += 1;
      // A waiting call takes over the slot of the one that ended (`running` stays as it was).
      try {
        return await task();
      } finally {
        if (waiting.length > 0) waiting.shift()!();
        else running -= 1;
      }
    },
  };
}
