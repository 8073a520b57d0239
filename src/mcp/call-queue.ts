/**
 * Bounds the tool calls that run at once, whatever transport they came from: at most `maxConcurrent`
 * tasks run, up to `maxQueued` more wait in arrival order, and a task beyond that is refused at once
 * with `QueueFull` (the caller answers it: over HTTP with 503 and `Retry-After`). A waiting task whose
 * signal aborts leaves the queue without running. A task's own time limit starts when it runs. Over stdio
 * the queue has no bound (every pipelined call is answered in its turn; a waiting call costs only its
 * request): the limit on running calls is what keeps file descriptors and memory bounded.
 */

/** The default limit on running calls: the loop's own limit on one turn's parallel tool calls. */
export const DEFAULT_MAX_CONCURRENT_CALLS = 16;
export class QueueFull extends Error {
  constructor(readonly maxConcurrent: number, readonly maxQueued: number) {
    super(`the server is busy: ${maxConcurrent} calls are running and ${maxQueued} are waiting; try again shortly`);
    this.name = "QueueFull";
  }
}

interface Waiting {
  start: () => void;
}

export class CallQueue {
  private running = 0;
  private readonly waiting: Waiting[] = [];

  constructor(readonly maxConcurrent: number, readonly maxQueued: number) {}

  /** Whether a task submitted now would be refused. */
  get full(): boolean {
    return this.running >= this.maxConcurrent && this.waiting.length >= this.maxQueued;
  }

  /** Runs `task` when a slot is free; rejects with `QueueFull` when none is and the queue is full, with the signal's reason when it aborts first. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.running < this.maxConcurrent) this.running += 1;
    else if (this.waiting.length >= this.maxQueued) throw new QueueFull(this.maxConcurrent, this.maxQueued);
    // A finishing task hands its slot straight to the next waiting one, so none can slip in between.
    else await this.wait(signal);
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next.start();
      else this.running -= 1;
    }
  }

  private wait(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry: Waiting = {
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.waiting.splice(this.waiting.indexOf(entry), 1);
        reject(signal?.reason);
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(entry);
    });
  }
}
