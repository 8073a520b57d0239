/**
 * The model client: one `TurnRequester` over any OpenAI-compatible Chat Completions endpoint, built on the
 * official `openai` SDK.
 *
 * Reliability, in two layers that never overlap:
 * - the SDK retries what fails before a response starts (429, 408, 409, 5xx incl. 529, refused or reset
 *   connections, no headers within `timeoutMs`), `maxRetries` times, honouring `retry-after-ms` /
 *   `retry-after`, with its own exponential backoff otherwise;
 * - this client retries, `brokenResponseRetries` times, a response that broke after a successful status
 *   (cut, malformed JSON/SSE, stalled past `idleTimeoutMs`, not finished within `responseTimeoutMs`, larger
 *   than `maxResponseBytes`, no choices, an error event mid-stream): the partial response is dropped whole
 *   and the same request is sent again.
 * The caller's abort signal stops everything at once and is never retried.
 */
import OpenAI from "openai";
import type { ChatCompletionCreateParams, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { isRecord, StreamAssembler, type RawTurn } from "./assemble-stream.js";
import { displayURL, ModelRequestError, oneLine, toModelRequestError, type ModelErrorKind } from "./model-errors.js";
import { normalizeTurn, rawTurnFromCompletion } from "./normalize-turn.js";
import type { ModelTurn, TurnRequest, TurnRequester } from "../loop/types.js";
import { clampTimerMs } from "../../shared/timer-limit.js";
import { createWatchedFetch, endedWithDone, newRequestWatch, watchedFetchOptions, type RequestWatch } from "./watched-fetch.js";

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

/**
 * Where requests go: a key and an endpoint, or an `openai` client a program already has (its key,
 * endpoint, headers and organization are kept; retries, timeout and fetch are set as below).
 */
export type TurnRequesterTarget =
  | {
      apiKey: string;
      /** The endpoint's API root (`OPENAI_BASE_URL`); default the SDK's (api.openai.com). */
      baseURL?: string;
      client?: never;
    }
  | { client: OpenAI; apiKey?: never; baseURL?: never };

export type TurnRequesterOptions = TurnRequesterTarget & TurnRequesterSettings;

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
}

export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_TIMEOUT_MS = 600_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 15_000;
export const DEFAULT_RESPONSE_TIMEOUT_MS = 600_000;
/** Far above any real completion (128k tokens of output are about 0.5 MB), and parsed by the SDK in about 3 s. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
export const DEFAULT_BROKEN_RESPONSE_RETRIES = 2;

export function createTurnRequester(options: TurnRequesterOptions): TurnRequester {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  // Durations past what a Node.js timer holds would fire at once: clamped, they mean "no limit".
  const idleTimeoutMs = clampTimerMs(options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
  const responseTimeoutMs = clampTimerMs(options.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS);
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const brokenResponseRetries = options.brokenResponseRetries ?? DEFAULT_BROKEN_RESPONSE_RETRIES;
  const report = (info: RetryInfo) => {
    try {
      options.onRetry?.(info);
    } catch {
      // Progress reporting must not break a request.
    }
  };
  const clientOptions = {
    maxRetries,
    timeout: clampTimerMs(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    // The SDK would print unparsable SSE lines to the console; failures reach the user as typed errors instead.
    logLevel: "off" as const,
    fetch: createWatchedFetch({
      idleTimeoutMs,
      responseTimeoutMs,
      maxResponseBytes,
      maxRetries,
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
  };
  const client = options.client
    ? options.client.withOptions(clientOptions)
    : new OpenAI({ apiKey: options.apiKey, ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}), ...clientOptions });
  const apiKey = client.apiKey;
  const baseURL = displayURL(client.baseURL);

  return async (request) => {
    for (let resend = 0; ; resend += 1) {
      const watch = newRequestWatch(request.signal);
      // The SDK adds an abort listener to the signal it is given and never removes it: given the run's
      // signal, a long run would pile up one per request. It gets one of its own, dropped with the request.
      const requestAbort = new AbortController();
      try {
        const work = requestOnce(client, request, requestAbort.signal, watch, baseURL);
        return await untilAborted(work, request.signal, requestAbort);
      } catch (error) {
        const failure = toModelRequestError(error, {
          baseURL,
          apiKey,
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

async function requestOnce(client: OpenAI, request: TurnRequest, signal: AbortSignal, watch: RequestWatch, baseURL: string): Promise<ModelTurn> {
  const body = {
    model: request.model,
    messages: [...request.messages] satisfies ChatCompletionMessageParam[],
    ...(request.tools.length > 0 ? { tools: [...request.tools] satisfies ChatCompletionTool[] } : {}),
  } satisfies ChatCompletionCreateParams;
  const raw = request.stream
    ? await streamedTurn(client, body, request, signal, watch, baseURL)
    : await plainTurn(client, body, signal, watch, baseURL);
  return normalizeTurn(raw);
}

type BaseBody = Pick<ChatCompletionCreateParams, "model" | "messages" | "tools">;

async function streamedTurn(
  client: OpenAI,
  body: BaseBody,
  request: TurnRequest,
  signal: AbortSignal,
  watch: RequestWatch,
  baseURL: string,
): Promise<RawTurn> {
  const stream = await client.chat.completions.create(
    { ...body, stream: true, stream_options: { include_usage: true } },
    { signal, fetchOptions: watchedFetchOptions(watch) },
  );
  const assembler = new StreamAssembler();
  // The SDK ends the iteration quietly when the request is aborted (by the caller or a body bound),
  // so both are checked after the loop: a stream cut that way is never taken as complete.
  for await (const chunk of stream) {
    const text = assembler.add(chunk);
    if (text !== undefined) request.onText?.(text);
  }
  if (request.signal.aborted || watch.cut !== undefined) throw new Error("aborted mid-stream");
  if (!assembler.sawChoice) {
    if (watch.contentType !== "text/event-stream") {
      throw malformed(`malformed response from ${baseURL}: expected an SSE stream (text/event-stream), got ${watch.contentType || "no content type"}`);
    }
    throw noChoices(baseURL);
  }
  const raw = assembler.result();
  // Without a finish reason, only `[DONE]` tells a finished text answer from one cut short by a proxy.
  if (raw.finishReason === null && raw.toolCalls.length === 0 && !endedWithDone(watch)) {
    throw malformed(`malformed response from ${baseURL}: the stream ended without a finish reason or [DONE] (cut short?); the partial response was dropped`);
  }
  return raw;
}

async function plainTurn(client: OpenAI, body: BaseBody, signal: AbortSignal, watch: RequestWatch, baseURL: string): Promise<RawTurn> {
  const completion: unknown = await client.chat.completions.create({ ...body, stream: false }, { signal, fetchOptions: watchedFetchOptions(watch) });
  if (typeof completion === "string" || !isRecord(completion)) {
    const start = typeof completion === "string" ? `: ${completion.replace(/\s+/g, " ").slice(0, 80)}` : "";
    throw malformed(`malformed response from ${baseURL}: not valid JSON${start}`);
  }
  if (isRecord(completion.error)) {
    const said = oneLine(typeof completion.error.message === "string" ? completion.error.message : JSON.stringify(completion.error));
    throw new ModelRequestError({ kind: "http", message: `the API answered with an error instead of a completion: ${said}`, retryable: true });
  }
  const choices = completion.choices;
  if (!Array.isArray(choices) || choices.length === 0) throw noChoices(baseURL);
  const raw = rawTurnFromCompletion(choices[0], completion.usage);
  if (raw === undefined) throw malformed(`malformed response from ${baseURL}: its first choice holds no message`);
  return raw;
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

function malformed(message: string): ModelRequestError {
  return new ModelRequestError({
    kind: "malformed",
    message,
    hint: "The endpoint or a proxy in front of it sent a broken body; check OPENAI_BASE_URL.",
    retryable: true,
  });
}

function noChoices(baseURL: string): ModelRequestError {
  return new ModelRequestError({
    kind: "no_choices",
    message: `no choices: the response from ${baseURL} held no completion`,
    hint: "The endpoint answered without a completion; check the model (AGENT_MODEL) and the endpoint.",
    retryable: true,
  });
}
