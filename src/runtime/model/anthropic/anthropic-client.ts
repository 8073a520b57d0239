/**
 * The Anthropic Messages requester: one `TurnRequester` over the official `@anthropic-ai/sdk`, streaming
 * or not, on the same transport, retries and resends as the Chat Completions one
 * (resending-requester.ts). Beyond one HTTP exchange it handles what only this API does:
 * - `pause_turn`: the paused content is sent back as it came and the request repeated (at most
 *   `MAX_PAUSES` times a turn), the pieces joined into one turn;
 * - "input length and `max_tokens` exceed context limit": the request is repeated once with the
 *   `max_tokens` that fits, when that leaves room for an answer (and the thinking budget), else it is a
 *   context-length refusal (the loop compacts); `model_context_window_exceeded` is one too.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParams, MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { isRecord } from "../assemble-stream.js";
import { ModelRequestError, displayURL, isTransientErrorCode, oneLine } from "../model-errors.js";
import { TOOL_RESULT_IMAGE_TYPES } from "../../loop/tool-result-items.js";
import type { ModelTurn, TokenUsage, TurnRequest, TurnRequester } from "../../loop/types.js";
import { MalformedStreamError, notAnEventStream, readEventStream } from "../read-event-stream.js";
import { malformed, noAnswer, resendingRequester, sdkTransport, type TurnRequesterSettings } from "../resending-requester.js";
import { watchedFetchOptions, type RequestWatch } from "../watched-fetch.js";
import { anthropicRequestError } from "./anthropic-errors.js";
import { AnthropicRequestWriter } from "./anthropic-request.js";
import { anthropicReplyOf, anthropicTurn, AnthropicStreamAssembler, type AnthropicReply, type Block } from "./anthropic-turn.js";

export interface AnthropicRequesterOptions extends TurnRequesterSettings {
  /** `ANTHROPIC_API_KEY`. */
  apiKey: string;
  /** The API root without `/v1` (`ANTHROPIC_BASE_URL`); default the SDK's (api.anthropic.com). */
  baseURL?: string;
  /** `max_tokens` (the API requires one). Default `DEFAULT_ANTHROPIC_MAX_TOKENS`, plus the thinking budget when thinking is on. */
  maxTokens?: number;
  /** Extended thinking's budget in tokens (at least 1024, below `maxTokens`); unset: thinking off. */
  thinkingBudget?: number;
}

export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
/** The fewest output tokens worth asking for when the context window leaves less than `max_tokens`. */
const MIN_FITTED_MAX_TOKENS = 1024;
export const MAX_PAUSES = 5;

export function createAnthropicTurnRequester(options: AnthropicRequesterOptions): TurnRequester {
  const transport = sdkTransport(options);
  const client = new Anthropic({ apiKey: options.apiKey, ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}), ...transport.clientOptions });
  const baseURL = displayURL(client.baseURL);
  const maxTokens = options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS + (options.thinkingBudget ?? 0);
  const settings: RequestSettings = { client, writer: new AnthropicRequestWriter(), baseURL, maxTokens, ...(options.thinkingBudget !== undefined ? { thinkingBudget: options.thinkingBudget } : {}) };
  // The images it sends in tool results (tool-result-items.ts); other media reach the model as notes.
  const requester = resendingRequester(
    {
      requestOnce: (request, signal, watch) => requestTurn(settings, request, signal, watch),
      toError: (error, failure) => anthropicRequestError(error, { baseURL, apiKey: options.apiKey, ...failure }),
    },
    transport,
  );
  return Object.assign(requester, { toolResultImages: TOOL_RESULT_IMAGE_TYPES });
}

interface RequestSettings {
  client: Anthropic;
  writer: AnthropicRequestWriter;
  baseURL: string;
  maxTokens: number;
  thinkingBudget?: number;
}

async function requestTurn(settings: RequestSettings, request: TurnRequest, signal: AbortSignal, watch: RequestWatch): Promise<ModelTurn> {
  const parts = settings.writer.parts(request.messages, request.tools);
  const paused: Block[] = [];
  let usage: TokenUsage | undefined;
  let maxTokens = settings.maxTokens;
  for (let pauses = 0; ; ) {
    const messages: MessageParam[] = paused.length > 0 ? [...parts.messages, { role: "assistant", content: paused as unknown as MessageParam["content"] }] : parts.messages;
    const body: MessageCreateParams = {
      model: request.model,
      max_tokens: maxTokens,
      messages,
      ...(parts.system !== undefined ? { system: parts.system } : {}),
      ...(parts.tools !== undefined ? { tools: parts.tools } : {}),
      ...(settings.thinkingBudget !== undefined ? { thinking: { type: "enabled", budget_tokens: settings.thinkingBudget } } : {}),
    };
    let reply: AnthropicReply;
    try {
      reply = request.stream ? await streamed(settings, body, request, signal, watch) : await plain(settings, body, signal, watch);
    } catch (error) {
      const fitted = fittedMaxTokens(error, settings.thinkingBudget);
      if (fitted === undefined || fitted >= maxTokens) throw error;
      maxTokens = fitted;
      continue;
    }
    usage = addUsage(usage, reply.usage);
    if (reply.stopReason === "pause_turn" && pauses < MAX_PAUSES) {
      pauses += 1;
      paused.push(...reply.blocks);
      continue;
    }
    if (reply.stopReason === "model_context_window_exceeded") throw contextWindowExceeded(settings.baseURL);
    return anthropicTurn({ ...reply, blocks: [...paused, ...reply.blocks], ...(usage ? { usage } : {}) });
  }
}

async function streamed(settings: RequestSettings, body: MessageCreateParams, request: TurnRequest, signal: AbortSignal, watch: RequestWatch): Promise<AnthropicReply> {
  const stream = await settings.client.messages.create({ ...body, stream: true }, { signal, fetchOptions: watchedFetchOptions(watch) });
  const assembler = new AnthropicStreamAssembler();
  try {
    await readEventStream(stream, assembler, request, watch);
  } catch (error) {
    if (error instanceof MalformedStreamError) throw brokenBody(`malformed response from ${settings.baseURL}: ${error.message}; the partial response was dropped`);
    throw error;
  }
  if (!assembler.started) throw notAnEventStream(watch, settings.baseURL, brokenBody) ?? noAnswer(settings.baseURL, "message");
  if (!assembler.stopped) {
    throw brokenBody(`malformed response from ${settings.baseURL}: the stream ended without message_stop (cut short?); the partial response was dropped`);
  }
  return assembler.result();
}

async function plain(settings: RequestSettings, body: MessageCreateParams, signal: AbortSignal, watch: RequestWatch): Promise<AnthropicReply> {
  const message: unknown = await settings.client.messages.create({ ...body, stream: false }, { signal, fetchOptions: watchedFetchOptions(watch) });
  if (typeof message === "string" || !isRecord(message)) {
    const start = typeof message === "string" ? `: ${message.replace(/\s+/g, " ").slice(0, 80)}` : "";
    throw brokenBody(`malformed response from ${settings.baseURL}: not valid JSON${start}`);
  }
  if (message.type === "error" && isRecord(message.error)) {
    const said = oneLine(typeof message.error.message === "string" ? message.error.message : JSON.stringify(message.error));
    // Resent only when its type says trying again may succeed (`overloaded_error`, `api_error`…), as an error event is.
    throw new ModelRequestError({ kind: "http", message: `the API answered with an error instead of a message: ${said}`, retryable: isTransientErrorCode(message.error.type) });
  }
  try {
    return anthropicReplyOf(message);
  } catch {
    throw noAnswer(settings.baseURL, "message");
  }
}

function brokenBody(message: string): ModelRequestError {
  return malformed(message, "The endpoint or a proxy in front of it sent a broken body; check ANTHROPIC_BASE_URL.");
}

/** "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, …" */
const INPUT_PLUS_MAX_TOKENS = /input length and `?max_tokens`? exceed context limit: (\d+) \+ (\d+) > (\d+)/;

/** The `max_tokens` that fits the window after such a refusal, if it leaves room for an answer. */
function fittedMaxTokens(error: unknown, thinkingBudget: number | undefined): number | undefined {
  if (!(error instanceof Anthropic.APIError) || error.status !== 400) return undefined;
  const match = INPUT_PLUS_MAX_TOKENS.exec(error.apiMessage ?? error.message);
  if (match === null) return undefined;
  const room = Number(match[3]) - Number(match[1]);
  return room >= MIN_FITTED_MAX_TOKENS + (thinkingBudget ?? 0) ? room : undefined;
}

function contextWindowExceeded(baseURL: string): ModelRequestError {
  return new ModelRequestError({
    kind: "http",
    message: `the response from ${baseURL} stopped at the model's context window (stop_reason model_context_window_exceeded)`,
    retryable: false,
    contextLengthExceeded: true,
  });
}

function addUsage(total: TokenUsage | undefined, more: TokenUsage | undefined): TokenUsage | undefined {
  if (more === undefined) return total;
  if (total === undefined) return more;
  const cached = (total.cachedTokens ?? 0) + (more.cachedTokens ?? 0);
  return {
    promptTokens: total.promptTokens + more.promptTokens,
    completionTokens: total.completionTokens + more.completionTokens,
    ...(total.cachedTokens !== undefined || more.cachedTokens !== undefined ? { cachedTokens: cached } : {}),
  };
}
