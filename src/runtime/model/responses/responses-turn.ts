/**
 * A Responses API response as the loop's `ModelTurn`, read from the response object (the one
 * `response.completed` / `response.incomplete` carries when streaming): output text from `message` items,
 * tool calls from `function_call` items (their `call_id` is the tool call's id; only `name` and
 * `arguments` are read, so nothing an SDK adds, such as `parsed_arguments`, reaches history), refusal parts
 * as the refusal, reasoning items kept whole as the message's `parts`. `status` decides the finish:
 * `completed` (stop / tool calls), `incomplete` for `max_output_tokens` (`length`) or `content_filter`;
 * anything else (`in_progress` from a cut stream, `failed`) is never a turn.
 */
import { isRecord, type RawTurn } from "../assemble-stream.js";
import { normalizeTurn, tokenCount } from "../normalize-turn.js";
import type { ProviderPart } from "../../loop/messages.js";
import type { ModelTurn, TokenUsage } from "../../loop/types.js";

export type ResponseStatusProblem = { problem: "not_finished"; status: string } | { problem: "failed"; code: string; message: string } | { problem: "empty" };

export function responsesTurn(response: Record<string, unknown>): ModelTurn | ResponseStatusProblem {
  const status = typeof response.status === "string" ? response.status : "";
  if (status === "failed") {
    const error = isRecord(response.error) ? response.error : {};
    return { problem: "failed", code: typeof error.code === "string" ? error.code : "", message: typeof error.message === "string" ? error.message : "the response failed" };
  }
  let finishReason: string | null;
  if (status === "completed") finishReason = null;
  else if (status === "incomplete") {
    const reason = isRecord(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    finishReason = reason === "max_output_tokens" ? "length" : reason === "content_filter" ? "content_filter" : `incomplete: ${String(reason)}`;
  } else return { problem: "not_finished", status: status || "none" };
  const output = Array.isArray(response.output) ? response.output.filter(isRecord) : [];
  if (output.length === 0 && status === "completed") return { problem: "empty" };
  let text = "";
  let refusal = "";
  const parts: ProviderPart[] = [];
  const toolCalls: RawTurn["toolCalls"] = [];
  for (const item of output) {
    if (item.type === "message" && Array.isArray(item.content)) {
      for (const part of item.content.filter(isRecord)) {
        if (part.type === "output_text" && typeof part.text === "string") text += part.text;
        if (part.type === "refusal" && typeof part.refusal === "string") refusal += part.refusal;
      }
    } else if (item.type === "function_call") {
      toolCalls.push({ id: typeof item.call_id === "string" ? item.call_id : "", name: typeof item.name === "string" ? item.name : "", arguments: item.arguments ?? "" });
    } else if (item.type === "reasoning") {
      parts.push({ provider: "responses", item });
    }
  }
  const turn = normalizeTurn({ content: text, refusal, toolCalls, finishReason, usage: undefined });
  if (parts.length > 0) turn.message.parts = parts;
  const usage = responsesUsage(response.usage);
  return { ...turn, ...(usage ? { usage } : {}) };
}

/** Usage only from counts that are token counts (`tokenCount`): without both, none; a bad cached count is left out. */
function responsesUsage(usage: unknown): TokenUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const input = tokenCount(usage.input_tokens);
  const output = tokenCount(usage.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const cached = tokenCount(isRecord(usage.input_tokens_details) ? usage.input_tokens_details.cached_tokens : undefined);
  return { promptTokens: input, completionTokens: output, ...(cached !== undefined ? { cachedTokens: cached } : {}) };
}

/** The summary text of a reasoning item, when it has one (shown on stderr, never as the answer). */
export function reasoningSummary(item: Record<string, unknown>): string {
  const summary = Array.isArray(item.summary) ? item.summary.filter(isRecord) : [];
  return summary.map((part) => (typeof part.text === "string" ? part.text : "")).filter((part) => part !== "").join("\n");
}
