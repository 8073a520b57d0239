/**
 * The `fetch` the SDK is given: the transport of node-http-fetch.ts (undici), plus what the SDK lacks, per model
 * request: bounds on the response body (the SDK's `timeout` stops at the headers, so a body that stalls,
 * never ends or grows without end would hold the request forever): an idle timeout, a total time from the
 * headers to the end, and a size in bytes; and a report of each retry the SDK is about to make (the SDK
 * retries silently). The request a fetch belongs to rides along in the request's `fetchOptions` under a
 * symbol (`watchedFetchOptions`): the SDK spreads them into the `RequestInit` of every attempt, its retries
 * included, and a `fetch` ignores keys it does not know (the transport's option rule skips symbols). An AsyncLocalStorage around the request found it too, but cost about a tenth of each
 * turn: every promise the SDK and `fetch` make inside it pays for the context (measured in
 * docs/tool-execution.md).
 */
import type { ClientOptions } from "openai";
import { bodyReader, nodeHttpFetch, textOf } from "./node-http-fetch.js";
import { transportRefusalIn } from "./transport-refusal.js";

/** What one `chat.completions.create` call's HTTP attempts learned. */
export interface RequestWatch {
  /** HTTP attempts made (the SDK's retries included). */
  attempts: number;
  /** The last attempt got a successful status and headers: a failure from here on is a broken body. */
  responded: boolean;
  /** Which bound cut the response body short, if one did (the body was cancelled). */
  cut: BodyCut | undefined;
  /** The last successful response's media type. */
  contentType: string;
  /** The last bytes of the body received, to tell a stream that ended with `data: [DONE]` from one cut short. */
  tail: Uint8Array;
  /** The body of the last attempt's error response, as the SDK read it (the SDK drops all but OpenAI's shape). */
  errorBody: string | undefined;
  /** The caller's signal: no retry is reported after it aborted. */
  userSignal: AbortSignal;
  /** Clears the timers of the response in flight. */
  stopBodyTimers(): void;
}

/**
 * A bound that cut a response body: `idle` no bytes for `limit` ms; `duration` not finished `limit` ms
 * after its headers; `size` more than `limit` bytes.
 */
export interface BodyCut {
  bound: "idle" | "duration" | "size";
  limit: number;
}

/** The bounds on one response body, as the caller configured them (the durations already clamped). */
export interface BodyLimits {
  idleTimeoutMs: number;
  responseTimeoutMs: number;
  maxResponseBytes: number;
}

/** A retry the SDK is about to make after a failed attempt. */
export interface SdkRetry {
  /** 1-based number of the retry. */
  retry: number;
  maxRetries: number;
  kind: "http" | "connection" | "timeout";
  status?: number;
  /** e.g. `HTTP 503 Service Unavailable`, `connection failed (fetch failed)`. */
  reason: string;
  /** The wait the server asked for (`retry-after-ms` / `retry-after`), if it did. */
  delayMs?: number;
}

export interface WatchedFetchOptions extends BodyLimits {
  /** The SDK's `maxRetries`, to tell whether a failed attempt will be retried. */
  maxRetries: number;
  onSdkRetry(retry: SdkRetry): void;
  /** What sends the request: the transport of node-http-fetch.ts unless given (the cassette recorder wraps it). */
  transport?: typeof fetch;
}

const WATCH = Symbol("sigloop.requestWatch");

/** The SDK's per-request `fetchOptions` that make its fetches report to `watch`. */
export function watchedFetchOptions(watch: RequestWatch): NonNullable<ClientOptions["fetchOptions"]> {
  return { [WATCH]: watch } as NonNullable<ClientOptions["fetchOptions"]>;
}

function watchOf(init: RequestInit | undefined): RequestWatch | undefined {
  return (init as { [WATCH]?: RequestWatch } | undefined)?.[WATCH];
}

export function newRequestWatch(userSignal: AbortSignal): RequestWatch {
  return { attempts: 0, responded: false, cut: undefined, errorBody: undefined, contentType: "", tail: new Uint8Array(), userSignal, stopBodyTimers: () => undefined };
}

export function createWatchedFetch(options: WatchedFetchOptions): typeof fetch {
  const transport = options.transport ?? nodeHttpFetch;
  return async (input, init) => {
    const watch = watchOf(init);
    if (watch === undefined) return transport(input, init);
    watch.attempts += 1;
    watch.responded = false;
    watch.errorBody = undefined;
    const willRetry = () => !watch.userSignal.aborted && watch.attempts <= options.maxRetries;
    const retry = { retry: watch.attempts, maxRetries: options.maxRetries };

    let response: Response;
    try {
      response = await transport(input, init);
    } catch (error) {
      if (willRetry()) {
        const timedOut = init?.signal?.aborted === true;
        options.onSdkRetry({ ...retry, kind: timedOut ? "timeout" : "connection", reason: timedOut ? "timeout: no response headers in time" : connectionReason(error) });
      }
      throw error;
    }
    if (!response.ok) {
      if (willRetry() && sdkRetriesStatus(response)) {
        const delayMs = requestedDelayMs(response.headers);
        // The SDK would wait as long as it is told, an hour included: past the cap, fail now instead.
        if (delayMs !== undefined && delayMs > MAX_RETRY_DELAY_MS) return keepingErrorBody(withHeader(response, "x-should-retry", "false"), watch);
        options.onSdkRetry({
          ...retry,
          kind: "http",
          status: response.status,
          reason: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`,
          ...(delayMs !== undefined ? { delayMs } : {}),
        });
      }
      return keepingErrorBody(response, watch);
    }
    watch.responded = true;
    watch.contentType = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    return withBodyLimits(response, options, watch);
  };
}

/** The longest `retry-after` honoured; a server asking for more gets an error right away (its message says the wait). */
export const MAX_RETRY_DELAY_MS = 60_000;

/** The longest error body kept for its message: enough for any message, bounded whatever the endpoint sends. */
const MAX_ERROR_BODY_CHARS = 65_536;

/** Notes the error body when the SDK reads it (`text()`), for the message the SDK would lose. */
function keepingErrorBody(response: Response, watch: RequestWatch): Response {
  const text = response.text.bind(response);
  Object.defineProperty(response, "text", {
    value: async () => {
      const body = await text();
      watch.errorBody = body.slice(0, MAX_ERROR_BODY_CHARS);
      return body;
    },
  });
  return response;
}

function withHeader(response: Response, name: string, value: string): Response {
  const headers = new Headers(response.headers);
  headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * Stops the response when a bound is passed: no bytes of the body for `idleTimeoutMs` since headers or the
 * last chunk, the body not finished `responseTimeoutMs` after its headers, or more than `maxResponseBytes`
 * received. The body is cancelled (which closes the connection) and its reader fails as an aborted
 * fetch's would; nothing past the size bound is handed on, so memory stays bounded whatever the endpoint
 * sends. The body is watched in place rather than wrapped in a new stream and Response: on Node 20
 * building those costs more per request than the rest of the client's own work. The SDK reads a
 * completion's body in one of two ways, both replaced here by reads that note each chunk: iterating `body`
 * (a stream) or `json()` / `text()` (anything else).
 */
function withBodyLimits(response: Response, limits: BodyLimits, watch: RequestWatch): Response {
  const body = response.body;
  const reader = bodyReader(response);
  if (body === null || reader === undefined) return response;
  // A chunk only notes its time: one idle timer per response, re-armed for the rest of the silence when it
  // fires early, costs less than clearing and setting a timer on every chunk.
  let lastChunkAt = performance.now();
  let received = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let durationTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    clearTimeout(idleTimer);
    clearTimeout(durationTimer);
    idleTimer = undefined;
    durationTimer = undefined;
  };
  const cut = (bound: BodyCut["bound"], limit: number) => {
    if (watch.cut !== undefined) return;
    watch.cut = { bound, limit };
    stop();
    reader.cancel().catch(() => undefined);
  };
  const armIdleFor = (ms: number) => {
    idleTimer = setTimeout(() => {
      const silence = performance.now() - lastChunkAt;
      if (silence < limits.idleTimeoutMs) {
        armIdleFor(limits.idleTimeoutMs - silence);
        return;
      }
      cut("idle", limits.idleTimeoutMs);
    }, ms);
    // A finished or abandoned body must not keep the process alive.
    idleTimer.unref();
  };
  watch.stopBodyTimers = stop;
  armIdleFor(limits.idleTimeoutMs);
  durationTimer = setTimeout(() => cut("duration", limits.responseTimeoutMs), limits.responseTimeoutMs);
  durationTimer.unref();

  const cutShort = () => new DOMException(`the response body was cut: ${watch.cut?.bound ?? "aborted"}`, "AbortError");
  const read = async (): Promise<Awaited<ReturnType<typeof reader.read>>> => {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch (error) {
      stop();
      // A Node stream cancelled by a bound fails its pending read as "premature close": the bound is the cause.
      throw watch.cut !== undefined ? cutShort() : error;
    }
    // A cancelled body ends quietly; it must not pass for a complete one.
    if (watch.cut !== undefined) throw cutShort();
    if (next.done) {
      stop();
      return next;
    }
    received += next.value.length;
    if (received > limits.maxResponseBytes) {
      cut("size", limits.maxResponseBytes);
      throw cutShort();
    }
    lastChunkAt = performance.now();
    watch.tail = lastBytes(watch.tail, next.value);
    return next;
  };
  const chunks: AsyncIterableIterator<Uint8Array> = {
    next: read,
    async return() {
      stop();
      await reader.cancel();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  const text = () => textOf(read);
  Object.defineProperty(body, Symbol.asyncIterator, { value: () => chunks });
  // The SDK takes a web stream's reader when it has one (the global fetch's bodies): it reads the same way.
  if (typeof (body as Partial<ReadableStream>).getReader === "function") {
    const watchedReader = { read, cancel: () => chunks.return?.(), releaseLock: () => undefined };
    Object.defineProperty(body, "getReader", { value: () => watchedReader });
  }
  Object.defineProperties(response, {
    text: { value: text },
    json: { value: async (): Promise<unknown> => JSON.parse(await text()) },
  });
  return response;
}

const TAIL_BYTES = 32;

function lastBytes(previous: Uint8Array, chunk: Uint8Array): Uint8Array {
  if (chunk.length >= TAIL_BYTES) return chunk.slice(chunk.length - TAIL_BYTES);
  const joined = new Uint8Array(previous.length + chunk.length);
  joined.set(previous);
  joined.set(chunk, previous.length);
  return joined.slice(Math.max(0, joined.length - TAIL_BYTES));
}

/** Whether the body received so far ends with the SSE end marker `data: [DONE]`. */
export function endedWithDone(watch: RequestWatch): boolean {
  return /data:\s*\[DONE\]\s*$/.test(new TextDecoder().decode(watch.tail));
}

/** The SDK's own rule for retrying a status (see `shouldRetry` in the openai client). */
function sdkRetriesStatus(response: Response): boolean {
  const header = response.headers.get("x-should-retry");
  if (header === "true") return true;
  if (header === "false") return false;
  const status = response.status;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The wait a response asks for before a retry, in ms (`retry-after-ms`, then `retry-after` in seconds or as a
 * date), read in the SDK's order. Undefined when the SDK uses its own backoff instead: no header, a value
 * that is no number or date, a negative or infinite one, a date already past (so no retry line says
 * "waiting -5000 ms as the server asked").
 */
export function requestedDelayMs(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  // A parsed retry-after-ms decides, valid or not: the SDK then reads no retry-after.
  if (!Number.isNaN(ms)) return waitable(ms);
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number.parseFloat(value);
  if (!Number.isNaN(seconds)) return waitable(seconds * 1000);
  const untilDate = Date.parse(value) - Date.now();
  return untilDate > 0 ? untilDate : undefined;
}

function waitable(ms: number): number | undefined {
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

function connectionReason(error: unknown): string {
  const refusal = transportRefusalIn(error);
  if (refusal !== undefined) return `could not reach the endpoint ${refusal.reason}`;
  let current: unknown = error;
  while (current instanceof Error) {
    const code = (current as { code?: unknown }).code;
    if (code === "ECONNREFUSED") return "connection refused";
    if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return "connection reset";
    if (typeof code === "string") return `connection failed (${code})`;
    current = current.cause;
  }
  return `connection failed (${error instanceof Error ? error.message : String(error)})`;
}
