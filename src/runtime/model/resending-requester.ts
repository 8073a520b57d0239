/**
 * What every dialect's requester shares: the transport each SDK is given (the watched fetch with its idle,
 * total-time and size bounds, and the SDK retry settings), and the layer above the SDK that resends a
 * request whose response broke after its headers. A dialect supplies one attempt (`requestOnce`) and the
 * translation of what it throws; everything else (retry reports, the caller's abort, the resend count) is
 * the same on Chat Completions, Anthropic Messages and Responses.
 */
import { ModelRequestError, type ModelErrorKind } from "./model-errors.js";
import type { ModelTurn, TurnRequest, TurnRequester } from "../loop/types.js";
import { clampTimerMs } from "../../shared/timer-limit.js";
import { createWatchedFetch, newRequestWatch, type RequestWatch } from "./watched-fetch.js";
import type { ExchangeSink } from "./cassette.js";
import { nodeHttpFetch } from "./node-http-fetch.js";
import { recordingFetch } from "./recording-fetch.js";

/** One retry about to happen, for progress output. */
export interface RetryInfo {
  /** `sdk`: the SDK retries a failed HTTP attempt; `broken_response`: this client resends after a broken body. */
  by: "sdk" | "broken_response";
  /** 1-based number of this retry within its layer. */
  attempt: number;
  /** The most retries that layer makes for one request. */
  maxAttempts: number;
  kind: ModelErrorKind;
  status?: number;
  /** What went wrong, one line, e.g. `HTTP 429 Too Many Requests` or `timeout: … sent nothing for 15 s …`. */
  reason: string;
  /** The wait the server asked for, when it did (otherwise the SDK's backoff applies). */
  delayMs?: number;
}

export interface TurnRequesterSettings {
  /** SDK retries per HTTP request (429/5xx/connection). Default 3; at least 2 is recommended. */
  maxRetries?: number;
  /** How long the SDK waits for response headers (a non-streamed response: for the whole generation). Default 10 min. */
  timeoutMs?: number;
  /** Longest silence allowed inside a response body, reset on every chunk. Default 15 s. */
  idleTimeoutMs?: number;
  /** Longest a response body may take from its headers to its end, however steadily it arrives. Default 10 min. */
  responseTimeoutMs?: number;
  /** Most bytes one response body may have (a stream that grows without end is cut here). Default 8 MiB. */
  maxResponseBytes?: number;
  /** Resends of a request whose response broke after its headers. Default 2. */
  brokenResponseRetries?: number;
  onRetry?: (info: RetryInfo) => void;
  /** Every HTTP exchange, for a cassette (`--record FILE`, cassette.ts). */
  record?: ExchangeSink;
}

export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_TIMEOUT_MS = 600_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 15_000;
export const DEFAULT_RESPONSE_TIMEOUT_MS = 600_000;
/** Far above any real completion (128k tokens of output are about 0.5 MB), and parsed by the SDK in about 3 s. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
export const DEFAULT_BROKEN_RESPONSE_RETRIES = 2;

/** The options every SDK client is built with (the OpenAI and Anthropic SDKs take the same ones). */
export interface SdkTransportOptions {
  maxRetries: number;
  timeout: number;
  logLevel: "off";
  fetch: typeof fetch;
}

export interface SdkTransport {
  clientOptions: SdkTransportOptions;
  brokenResponseRetries: number;
  report(info: RetryInfo): void;
}

export function sdkTransport(settings: TurnRequesterSettings): SdkTransport {
  const maxRetries = settings.maxRetries ?? DEFAULT_MAX_RETRIES;
  const report = (info: RetryInfo) => {
    try {
      settings.onRetry?.(info);
    } catch {
      // Progress reporting must not break a request.
    }
  };
  return {
    brokenResponseRetries: settings.brokenResponseRetries ?? DEFAULT_BROKEN_RESPONSE_RETRIES,
    report,
    clientOptions: {
      maxRetries,
      timeout: clampTimerMs(settings.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      // The SDK would print unparsable SSE lines to the console; failures reach the user as typed errors instead.
      logLevel: "off",
      fetch: createWatchedFetch({
        // Durations past what a Node.js timer holds would fire at once: clamped, they mean "no limit".
        idleTimeoutMs: clampTimerMs(settings.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS),
        responseTimeoutMs: clampTimerMs(settings.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS),
        maxResponseBytes: settings.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        maxRetries,
        ...(settings.record !== undefined ? { transport: recordingFetch(nodeHttpFetch, settings.record) } : {}),
        onSdkRetry: (retry) =>
          report({
            by: "sdk",
            attempt: retry.retry,
            maxAttempts: retry.maxRetries,
            kind: retry.kind,
            reason: retry.reason,
            ...(retry.status !== undefined ? { status: retry.status } : {}),
            ...(retry.delayMs !== undefined ? { delayMs: retry.delayMs } : {}),
          }),
      }),
    },
  };
}

/** What the translation of a failure learns from the attempt. */
export interface AttemptFailure {
  userAborted: boolean;
  attempts: number;
  cut?: RequestWatch["cut"];
  /** The last error response's body as the SDK read it, for a message in any shape. */
  errorBody?: string;
}

export interface Dialect {
  /** One request through the SDK, its fetches reporting to `watch`; `signal` is the request's own. */
  requestOnce(request: TurnRequest, signal: AbortSignal, watch: RequestWatch): Promise<ModelTurn>;
  /** Anything `requestOnce` threw, as the error the caller receives. */
  toError(error: unknown, failure: AttemptFailure): ModelRequestError;
}

export function resendingRequester(dialect: Dialect, transport: SdkTransport): TurnRequester {
  const { brokenResponseRetries, report } = transport;
  return async (request) => {
    for (let resend = 0; ; resend += 1) {
      const watch = newRequestWatch(request.signal);
      // The SDK adds an abort listener to the signal it is given and never removes it: given the run's
      // signal, a long run would pile up one per request. It gets one of its own, dropped with the request.
      const requestAbort = new AbortController();
      try {
        const work = dialect.requestOnce(request, requestAbort.signal, watch);
        return await untilAborted(work, request.signal, requestAbort);
      } catch (error) {
        const failure = dialect.toError(error, {
          userAborted: request.signal.aborted,
          attempts: watch.attempts,
          ...(watch.cut !== undefined ? { cut: watch.cut } : {}),
          ...(watch.errorBody !== undefined ? { errorBody: watch.errorBody } : {}),
        });
        const brokenBody = watch.responded || watch.cut !== undefined;
        if (!brokenBody || !failure.retryable || failure.kind === "aborted" || resend >= brokenResponseRetries) throw failure;
        report({
          by: "broken_response",
          attempt: resend + 1,
          maxAttempts: brokenResponseRetries,
          kind: failure.kind,
          reason: failure.message,
          ...(failure.status !== undefined ? { status: failure.status } : {}),
        });
      } finally {
        watch.stopBodyTimers();
      }
    }
  };
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts: the SDK sleeps between retries without
 * watching the signal, and Ctrl-C must not wait for a backoff. What `work` does afterwards is ignored.
 * `request` (the signal the SDK was given) is aborted with it, and `signal` keeps no listener afterwards.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, request: AbortController): Promise<T> {
  if (signal.aborted) {
    request.abort(signal.reason);
    work.catch(() => undefined);
    return Promise.reject(new Error("aborted"));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      request.abort(signal.reason);
      reject(new Error("aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * A response that held no answer, `what` one in the dialect's words: resent (a model sometimes answers
 * with nothing once).
 */
export function noAnswer(baseURL: string, what: "completion" | "message" | "output"): ModelRequestError {
  // "without output", but "without a message".
  const without = what === "output" ? what : `a ${what}`;
  return new ModelRequestError({
    kind: "no_choices",
    message: `no choices: the response from ${baseURL} held no ${what}`,
    hint: `The endpoint answered without ${without}; check the model (AGENT_MODEL) and the endpoint.`,
    retryable: true,
  });
}

/** A body the endpoint broke: dropped and resent. */
export function malformed(message: string, hint: string): ModelRequestError {
  return new ModelRequestError({ kind: "malformed", message, hint, retryable: true });
}
