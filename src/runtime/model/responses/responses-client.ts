/**
 * The OpenAI Responses requester: one `TurnRequester` over the `openai` SDK's `responses.create`, streaming
 * or not, on the same transport, retries and resends as the Chat Completions one (resending-requester.ts).
 *
 * The SDK's `responses.stream()` helper is not used, for two traps: its `finalResponse()` resolves on a
 * stream cut short, with `status: "in_progress"` and the partial text, and it adds `parsed_arguments` to
 * function calls, which the API refuses when they are sent back. Instead the raw events are read: text
 * deltas go to `onText` for display, and the turn is the response object of the terminal event
 * (`response.completed` / `response.incomplete`), and the read stops there (what follows never counts, and
 * a body left open after it is not waited for); a stream that ends without one was cut and is resent.
 * `response.failed` and an `error` event are API errors (a context-length one starts compaction).
 * The request goes through `client.post` with its body as JSON text (see `PostOptions`); the streamed
 * body is read by `sseEvents`, which parses only the events the reader reads (`READ_EVENTS`).
 */
import OpenAI, { APIError } from "openai";
import { isRecord } from "../assemble-stream.js";
import { isContextLengthRefusal } from "../../compaction/context-length-refusal.js";
import { displayURL, isTransientErrorCode, ModelRequestError, oneLine, toModelRequestError } from "../model-errors.js";
import { openAIClient, type TurnRequesterTarget } from "../model-client.js";
import { asOwnOpenAIError } from "../other-openai-copy.js";
import { TOOL_RESULT_IMAGE_TYPES } from "../../loop/tool-result-items.js";
import type { ModelTurn, TurnRequest, TurnRequester } from "../../loop/types.js";
import { notAnEventStream, readEventStream, type StreamEventReader } from "../read-event-stream.js";
import { malformed, noAnswer, resendingRequester, sdkTransport, type TurnRequesterSettings } from "../resending-requester.js";
import { sseEvents } from "../sse-events.js";
import { watchedFetchOptions, type RequestWatch } from "../watched-fetch.js";
import { ResponsesBodyWriter } from "./responses-request.js";
import { reasoningSummary, responsesTurn } from "./responses-turn.js";

export type ResponsesRequesterOptions = TurnRequesterTarget &
  TurnRequesterSettings & {
    /** `max_output_tokens`; default: not sent (the model's own limit). */
    maxTokens?: number;
    /** `reasoning.effort` (with `summary: "auto"`); default: not sent (the model's own). */
    reasoningEffort?: "low" | "medium" | "high";
    /** Each reasoning summary the model sends, for stderr (never part of the answer). */
    onReasoningSummary?: (summary: string) => void;
  };

export const DEFAULT_RESPONSES_MODEL = "gpt-5-mini";

export function createResponsesTurnRequester(options: ResponsesRequesterOptions): TurnRequester {
  const transport = sdkTransport(options);
  const client = openAIClient(options, transport.clientOptions);
  const apiKey = client.apiKey ?? "";
  const baseURL = displayURL(client.baseURL);
  const writer = new ResponsesBodyWriter();
  // The images it sends in tool results (tool-result-items.ts); other media reach the model as notes.
  const requester = resendingRequester(
    {
      requestOnce: (request, signal, watch) => requestOnce(client, writer, options, baseURL, request, signal, watch),
      toError: (error, failure) => toModelRequestError(midStreamContextRefusal(error) ?? error, { baseURL, apiKey, ...failure }),
    },
    transport,
  );
  return Object.assign(requester, { toolResultImages: TOOL_RESULT_IMAGE_TYPES });
}

async function requestOnce(
  client: OpenAI,
  writer: ResponsesBodyWriter,
  options: ResponsesRequesterOptions,
  baseURL: string,
  request: TurnRequest,
  signal: AbortSignal,
  watch: RequestWatch,
): Promise<ModelTurn> {
  const body = writer.text(request.messages, request.tools, {
    model: request.model,
    stream: request.stream,
    ...(options.reasoningEffort !== undefined ? { reasoningEffort: options.reasoningEffort } : {}),
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
  });
  const requestOptions: PostOptions = { body, headers: JSON_BODY, signal, fetchOptions: watchedFetchOptions(watch) };
  const response = request.stream
    ? await streamed(client, requestOptions, request, watch, baseURL, options)
    : await plain(client, requestOptions, watch, baseURL);
  if (!isRecord(response)) {
    const start = typeof response === "string" ? `: ${response.replace(/\s+/g, " ").slice(0, 80)}` : "";
    throw brokenBody(`malformed response from ${baseURL}: not valid JSON${start}`);
  }
  if (response.status === undefined && isRecord(response.error)) {
    const said = oneLine(typeof response.error.message === "string" ? response.error.message : JSON.stringify(response.error));
    // Resent only when its code says trying again may succeed, as an error event is.
    throw new ModelRequestError({ kind: "http", message: `the API answered with an error instead of a response: ${said}`, retryable: isTransientErrorCode(response.error.code) });
  }
  const turn = responsesTurn(response);
  if ("problem" in turn) throw statusError(turn, baseURL);
  if (!request.stream) reportSummaries(response.output, options);
  return turn;
}

/**
 * The body goes as JSON text (`ResponsesBodyWriter`) through the SDK's documented `client.post`, which
 * sends a string with a content type as it is, on the client's retries, timeout and transport.
 * `responses.create` would serialise the body object again on every request, through a replacer
 * function that the SDK calls for every value of the body (to read its `stream` field).
 */
type PostOptions = { body: string; headers: Record<string, string>; signal: AbortSignal; fetchOptions: ReturnType<typeof watchedFetchOptions> };

const JSON_BODY = { "content-type": "application/json" };

async function streamed(
  client: OpenAI,
  requestOptions: PostOptions,
  request: TurnRequest,
  watch: RequestWatch,
  baseURL: string,
  options: Pick<ResponsesRequesterOptions, "onReasoningSummary">,
): Promise<unknown> {
  const response = await client.post("/responses", { ...requestOptions, stream: true }).asResponse();
  const reader = new ResponsesStreamReader(options);
  await readEventStream(sseEvents(response, RESPONSES_EVENTS), reader, request, watch);
  if (reader.final === undefined) {
    throw (
      notAnEventStream(watch, baseURL, brokenBody) ??
      brokenBody(`malformed response from ${baseURL}: the stream ended without response.completed (cut short?); the partial response was dropped`)
    );
  }
  return reader.final;
}

/** The events `ResponsesStreamReader` reads; every other named event is skipped unparsed (an `error` event is always read). */
const READ_EVENTS = new Set(["response.output_text.delta", "response.output_item.done", "response.completed", "response.incomplete", "response.failed"]);

const RESPONSES_EVENTS = {
  reads: (name: string) => READ_EVENTS.has(name),
  // The SDK's own error for an error event (no status), so that errors read the same either way.
  apiError: (error: {} | undefined, headers: Headers) => new APIError(undefined, error, undefined, headers),
};

/**
 * A stream's events: text deltas for display, reasoning summaries reported, the terminal event's response
 * kept. The terminal event ends the read (`ended`): a second one, or anything after it, never replaces the turn.
 */
class ResponsesStreamReader implements StreamEventReader<unknown> {
  /** The response of `response.completed`, `response.incomplete` or `response.failed`, once one came. */
  final: unknown;
  ended = false;

  constructor(private readonly options: Pick<ResponsesRequesterOptions, "onReasoningSummary">) {}

  add(event: unknown): string | undefined {
    if (!isRecord(event)) throw new TypeError("a stream event is not a JSON object");
    if (event.type === "response.output_text.delta" && typeof event.delta === "string" && event.delta !== "") return event.delta;
    if (event.type === "response.output_item.done" && isRecord(event.item) && event.item.type === "reasoning") reportSummaries([event.item], this.options);
    else if (event.type === "response.completed" || event.type === "response.incomplete" || event.type === "response.failed") {
      this.final = event.response;
      this.ended = true;
    }
    return undefined;
  }
}

async function plain(client: OpenAI, requestOptions: PostOptions, watch: RequestWatch, baseURL: string): Promise<unknown> {
  const response = await client.post<unknown>("/responses", { ...requestOptions, stream: false });
  // The SDK hands back the text of a body that was not JSON.
  if (typeof response === "string" && watch.responded && watch.cut === undefined && watch.contentType !== "application/json") {
    throw brokenBody(`malformed response from ${baseURL}: not valid JSON (a ${watch.contentType || "body without a content type"})`);
  }
  return response;
}

function reportSummaries(output: unknown, options: Pick<ResponsesRequesterOptions, "onReasoningSummary">): void {
  if (!Array.isArray(output) || options.onReasoningSummary === undefined) return;
  for (const item of output.filter(isRecord)) {
    if (item.type !== "reasoning") continue;
    const summary = reasoningSummary(item);
    if (summary === "") continue;
    try {
      options.onReasoningSummary(summary);
    } catch {
      // Progress reporting must not break a request.
    }
  }
}

function statusError(problem: Exclude<ReturnType<typeof responsesTurn>, ModelTurn>, baseURL: string): ModelRequestError {
  switch (problem.problem) {
    case "not_finished":
      return brokenBody(`malformed response from ${baseURL}: the response ended with status ${problem.status}, unfinished; the partial response was dropped`);
    case "empty":
      return noAnswer(baseURL, "output");
    case "failed": {
      const contextLengthExceeded = isContextLengthRefusal({ code: problem.code, message: problem.message });
      return new ModelRequestError({
        kind: "http",
        message: `the API reported that the response failed: ${oneLine(problem.message)}${problem.code ? ` (${problem.code})` : ""}`,
        retryable: !contextLengthExceeded && isTransientErrorCode(problem.code),
        ...(contextLengthExceeded ? { contextLengthExceeded } : {}),
      });
    }
  }
}

/** An `error` event in a 200 stream that says the input is too long: a context-length refusal, not a broken body. */
function midStreamContextRefusal(thrown: unknown): ModelRequestError | undefined {
  const error = asOwnOpenAIError(thrown);
  if (!(error instanceof APIError) || error.status !== undefined) return undefined;
  const body = isRecord(error.error) ? error.error : {};
  const message = typeof body.message === "string" ? body.message : error.message;
  if (!isContextLengthRefusal({ code: body.code, type: body.type, message })) return undefined;
  return new ModelRequestError({ kind: "http", message: `the API refused the request in its response: ${oneLine(message)}`, retryable: false, contextLengthExceeded: true });
}

function brokenBody(message: string): ModelRequestError {
  return malformed(message, "The endpoint or a proxy in front of it sent a broken body; check OPENAI_BASE_URL.");
}
