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
import { displayURL, isTransientErrorCode, ModelRequestError, oneLine, toModelRequestError } from "./model-errors.js";
import { normalizeTurn, rawTurnFromCompletion } from "./normalize-turn.js";
import { chatWireMessage } from "../loop/provider-parts.js";
import type { ModelTurn, TurnRequest, TurnRequester } from "../loop/types.js";
import { notAnEventStream, readEventStream } from "./read-event-stream.js";
import { noAnswer, resendingRequester, sdkTransport, type SdkTransportOptions, type TurnRequesterSettings } from "./resending-requester.js";
import { endedWithDone, watchedFetchOptions, type RequestWatch } from "./watched-fetch.js";

export type { RetryInfo, TurnRequesterSettings } from "./resending-requester.js";
export {
  DEFAULT_BROKEN_RESPONSE_RETRIES,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_RETRIES,
  DEFAULT_RESPONSE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
} from "./resending-requester.js";

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

export type TurnRequesterOptions = TurnRequesterTarget & TurnRequesterSettings & {
  /** Most tokens one answer may take (`max_completion_tokens`); default: not sent, the endpoint's own limit. */
  maxTokens?: number;
};

export function createTurnRequester(options: TurnRequesterOptions): TurnRequester {
  const transport = sdkTransport(options);
  const client = openAIClient(options, transport.clientOptions);
  const apiKey = client.apiKey ?? "";
  const baseURL = displayURL(client.baseURL);
  return resendingRequester(
    {
      requestOnce: (request, signal, watch) => requestOnce(client, request, signal, watch, baseURL, options.maxTokens),
      toError: (error, failure) => toModelRequestError(error, { baseURL, apiKey, ...failure }),
    },
    transport,
  );
}

/** The `openai` client for a target: the program's own (retries, timeout and fetch replaced) or a new one. */
export function openAIClient(target: TurnRequesterTarget, clientOptions: SdkTransportOptions): OpenAI {
  return target.client
    ? target.client.withOptions(clientOptions)
    : new OpenAI({ apiKey: target.apiKey, ...(target.baseURL !== undefined ? { baseURL: target.baseURL } : {}), ...clientOptions });
}

async function requestOnce(
  client: OpenAI,
  request: TurnRequest,
  signal: AbortSignal,
  watch: RequestWatch,
  baseURL: string,
  maxTokens: number | undefined,
): Promise<ModelTurn> {
  const body = {
    model: request.model,
    messages: request.messages.map(chatWireMessage) as ChatCompletionMessageParam[],
    ...(request.tools.length > 0 ? { tools: [...request.tools] satisfies ChatCompletionTool[] } : {}),
    ...(maxTokens !== undefined ? { max_completion_tokens: maxTokens } : {}),
  } satisfies ChatCompletionCreateParams;
  const raw = request.stream
    ? await streamedTurn(client, body, request, signal, watch, baseURL)
    : await plainTurn(client, body, signal, watch, baseURL);
  return normalizeTurn(raw);
}

type BaseBody = Pick<ChatCompletionCreateParams, "model" | "messages" | "tools" | "max_completion_tokens">;

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
  await readEventStream(stream, assembler, request, watch);
  if (!assembler.sawChoice) throw notAnEventStream(watch, baseURL, malformed) ?? noAnswer(baseURL, "completion");
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
    throw new ModelRequestError({ kind: "http", message: `the API answered with an error instead of a completion: ${said}`, retryable: isTransientErrorCode(completion.error.code) });
  }
  const choices = completion.choices;
  if (!Array.isArray(choices) || choices.length === 0) throw noAnswer(baseURL, "completion");
  const raw = rawTurnFromCompletion(choices[0], completion.usage);
  if (raw === undefined) throw malformed(`malformed response from ${baseURL}: its first choice holds no message`);
  return raw;
}

function malformed(message: string): ModelRequestError {
  return new ModelRequestError({
    kind: "malformed",
    message,
    hint: "The endpoint or a proxy in front of it sent a broken body; check OPENAI_BASE_URL.",
    retryable: true,
  });
}
