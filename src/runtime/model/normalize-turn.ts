/**
 * Turns a provider's response into the `ModelTurn` the loop keeps: an assistant message holding only
 * `role`, `content` and `tool_calls`, valid for the strictest gateway whatever the provider sent.
 */
import { randomBytes } from "node:crypto";
import { isRecord, type RawToolCall, type RawTurn } from "./assemble-stream.js";
import type { AssistantMessage, ToolCall } from "../loop/messages.js";
import type { ModelTurn, TokenUsage } from "../loop/types.js";

/**
 * - `arguments` always a string: an object becomes its JSON, `null`/missing becomes `""`;
 * - a missing, empty or repeated id is replaced by a generated `call_<random>`; a missing name by `MISSING_NAME`;
 * - never `content: null` without tool calls (`""` instead), never an empty `tool_calls` array;
 * - `finishReason` is `tool_calls` when there are tool calls and the provider said `stop` or nothing,
 *   `stop` when it said nothing and there are none; otherwise the provider's own reason.
 */
export function normalizeTurn(raw: RawTurn): ModelTurn {
  const toolCalls = normalizeToolCalls(raw.toolCalls);
  const text = raw.content ?? "";
  const [first, ...rest] = toolCalls;
  const message: AssistantMessage =
    first === undefined
      ? { role: "assistant", content: text }
      : { role: "assistant", content: text === "" ? null : text, tool_calls: [first, ...rest] };
  const usage = normalizeUsage(raw.usage);
  return {
    message,
    finishReason: finishReasonOf(raw.finishReason, toolCalls.length > 0),
    ...(raw.refusal !== "" ? { refusal: raw.refusal } : {}),
    ...(usage ? { usage } : {}),
  };
}

/** The raw turn of a non-streamed response's first choice (`undefined` if it holds no message). */
export function rawTurnFromCompletion(choice: unknown, usage: unknown): RawTurn | undefined {
  if (!isRecord(choice) || !isRecord(choice.message)) return undefined;
  const message = choice.message;
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return {
    content: typeof message.content === "string" ? message.content : null,
    refusal: typeof message.refusal === "string" ? message.refusal : "",
    toolCalls: calls.filter(isRecord).map((call) => {
      const fn = isRecord(call.function) ? call.function : {};
      return {
        id: typeof call.id === "string" ? call.id : "",
        name: typeof fn.name === "string" ? fn.name : "",
        arguments: fn.arguments,
      };
    }),
    finishReason: typeof choice.finish_reason === "string" && choice.finish_reason !== "" ? choice.finish_reason : null,
    usage,
  };
}

/** Strict gateways reject an empty function name in history; the executor answers this one as an unknown tool. */
export const MISSING_NAME = "missing_tool_name";

function normalizeToolCalls(calls: readonly RawToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls
    // A call with neither name nor arguments is a stray delta, not something the model asked for.
    .filter((call) => call.name !== "" || argumentsText(call.arguments) !== "")
    .map((call) => {
      const id = call.id !== "" && !seen.has(call.id) ? call.id : generateCallId();
      seen.add(id);
      const name = call.name === "" ? MISSING_NAME : call.name;
      return { id, type: "function", function: { name, arguments: argumentsText(call.arguments) } };
    });
}

function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  if (args === undefined || args === null) return "";
  return JSON.stringify(args);
}

/** A fresh tool call id in the shape providers use. */
function generateCallId(): string {
  return `call_${randomBytes(12).toString("base64url")}`;
}

function finishReasonOf(reason: string | null, hasToolCalls: boolean): string {
  if (hasToolCalls && (reason === null || reason === "stop")) return "tool_calls";
  return reason ?? "stop";
}

function normalizeUsage(usage: unknown): TokenUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const prompt = tokenCount(usage.prompt_tokens);
  const completion = tokenCount(usage.completion_tokens);
  if (prompt === undefined || completion === undefined) return undefined;
  const details = usage.prompt_tokens_details;
  const cached = tokenCount(isRecord(details) ? details.cached_tokens : undefined);
  return { promptTokens: prompt, completionTokens: completion, ...(cached !== undefined ? { cachedTokens: cached } : {}) };
}

/**
 * A token count as a provider reports it, when it is one: a non-negative safe integer. Anything else (a
 * negative count, 1e308, a fraction) is dropped rather than printed and summed into the run's usage.
 */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}
