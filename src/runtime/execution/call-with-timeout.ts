import { clampTimerMs } from "../../shared/timer-limit.js";
import { onAbort } from "./abort-fan-out.js";
import { runWithToolContext } from "./tool-context.js";
import type { ToolContext } from "../loop/types.js";

export type CallResult =
  | { kind: "returned"; value: unknown }
  | { kind: "threw"; error: unknown }
  | { kind: "timeout" }
  | { kind: "aborted" };

/**
 * Calls `fn(...args)` inside the tool context with its own abort signal, which fires when the caller's
 * signal does or when `timeoutMs` passes. A tool that ignores its signal cannot be stopped in-process:
 * its late result or rejection is dropped, never surfacing as an unhandled rejection. The signal is made
 * when the tool first reads it (most tools never do), already aborted if the call was stopped by then.
 */
export async function callWithTimeout(
  fn: (...args: unknown[]) => unknown,
  args: readonly unknown[],
  context: ToolContext,
  timeoutMs: number,
): Promise<CallResult> {
  if (context.signal.aborted) return { kind: "aborted" };
  let controller: AbortController | undefined;
  let stopReason: { reason: unknown } | undefined;
  // Only these two abort the tool's signal, so each settles the call itself: a listener on the tool's
  // own signal would cost more than the call of a small tool.
  let settle: (result: CallResult) => void = () => undefined;
  const stopped = new Promise<CallResult>((resolve) => (settle = resolve));
  const stop = (result: CallResult, reason: unknown): void => {
    settle(result);
    stopReason ??= { reason };
    controller?.abort(reason);
  };
  const stopWatching = onAbort(context.signal, () => stop({ kind: "aborted" }, context.signal.reason));
  const timer = setTimeout(
    () => stop({ kind: "timeout" }, new DOMException(`The tool call timed out after ${timeoutMs} ms`, "TimeoutError")),
    clampTimerMs(timeoutMs),
  );
  const toolContext: ToolContext = {
    ...context,
    get signal() {
      if (controller === undefined) {
        controller = new AbortController();
        if (stopReason !== undefined) controller.abort(stopReason.reason);
      }
      return controller.signal;
    },
  };
  const ran = (async () => runWithToolContext(toolContext, () => fn(...args)))().then(
    (value): CallResult => ({ kind: "returned", value }),
    (error: unknown): CallResult => ({ kind: "threw", error }),
  );
  try {
    return await Promise.race([ran, stopped]);
  } finally {
    clearTimeout(timer);
    stopWatching();
  }
}
