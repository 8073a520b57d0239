/**
 * The `progress` and `log` of one call's `toolContext()`, in front of the caller's `onReport`. Progress
 * is MCP's: raw counts, each report larger than the last (a value that does not increase, or is not a
 * finite number, is dropped), at most one per `PROGRESS_INTERVAL_MS` (a report within it waits, replaced
 * by any newer one, until the interval has passed). `close` sends a waiting report at once and then
 * stops the call's reports, so the last progress arrives and nothing arrives after the result.
 */
/** MCP's log levels, least severe first. */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * What a running tool reports through `toolContext()`: progress (MCP's raw counts, each larger than the
 * last, at most one per 50 ms) and log lines, for whoever runs the call to show.
 */
export type ToolReport =
  | { kind: "progress"; progress: number; total?: number; message?: string }
  | { kind: "log"; level: LogLevel; message: string };

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);
}

/** Whether a line at `level` passes a threshold of `threshold`. */
export function logLevelPasses(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

/** The fewest milliseconds between two progress reports of one call. */
export const PROGRESS_INTERVAL_MS = 50;

export interface CallReports {
  progress(done: number, total?: number, message?: string): void;
  log(level: LogLevel, message: string): void;
  /** Sends the waiting progress report, if any; later reports are dropped. */
  close(): void;
}

const monotonicNow = (): number => performance.now();

export function callReports(send: (report: ToolReport) => void, now: () => number = monotonicNow): CallReports {
  let open = true;
  let last = Number.NEGATIVE_INFINITY;
  let sentAt = Number.NEGATIVE_INFINITY;
  let waiting: ToolReport | undefined;
  let timer: NodeJS.Timeout | undefined;
  const deliver = (report: ToolReport): void => {
    try {
      send(report);
    } catch {
      // A failing display must not fail the tool that reported.
    }
  };
  const flush = (): void => {
    timer = undefined;
    if (waiting === undefined) return;
    const report = waiting;
    waiting = undefined;
    sentAt = now();
    deliver(report);
  };
  return {
    progress(done, total, message) {
      if (!open || typeof done !== "number" || !Number.isFinite(done) || done <= last) return;
      last = done;
      waiting = {
        kind: "progress",
        progress: done,
        ...(typeof total === "number" && Number.isFinite(total) ? { total } : {}),
        ...(typeof message === "string" ? { message } : {}),
      };
      const wait = sentAt + PROGRESS_INTERVAL_MS - now();
      if (wait <= 0) flush();
      else timer ??= setTimeout(flush, wait).unref();
    },
    log(level, message) {
      if (!isLogLevel(level)) {
        throw new TypeError(`toolContext().log(level, message) needs one of MCP's levels (${LOG_LEVELS.join(", ")}) as level, not ${JSON.stringify(level) ?? String(level)}.`);
      }
      if (open) deliver({ kind: "log", level, message: String(message) });
    },
    close() {
      if (!open) return;
      if (timer !== undefined) clearTimeout(timer);
      flush();
      open = false;
    },
  };
}

/** The reports of a call nobody listens to (and of `toolContext()` outside a call): checked, then dropped. */
export const SILENT_REPORTS: CallReports = callReports(() => undefined);
SILENT_REPORTS.close();
