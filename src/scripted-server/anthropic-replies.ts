/**
 * The scripted server's replies in Anthropic's Messages format: a message body, or its SSE events
 * (`message_start`, a `ping`, each block's start / deltas / stop, `message_delta`, `message_stop`), and
 * the faults' Anthropic forms. A scripted step's `thinking` / `redactedThinking` become blocks only when
 * the request enabled thinking, signed so the server can tell an altered one later (anthropic-rules.ts).
 */
import type { ThinkingLedger } from "./anthropic-rules.js";
import { pieces } from "./text-pieces.js";
import type { RecordedRequest, ReplyStep, ScriptedToolCall } from "./script.js";

const STOP_REASONS: Record<string, string> = { stop: "end_turn", tool_calls: "tool_use", length: "max_tokens", content_filter: "refusal" };

type Block = Record<string, unknown>;

export function anthropicStopReason(step: ReplyStep): string | null {
  if (step.finishReason === null) return null;
  if (step.finishReason !== undefined) return STOP_REASONS[step.finishReason] ?? step.finishReason;
  return step.toolCalls && step.toolCalls.length > 0 ? "tool_use" : "end_turn";
}

function thinkingEnabled(request: RecordedRequest): boolean {
  const thinking = request.body?.thinking;
  return typeof thinking === "object" && thinking !== null && (thinking as Record<string, unknown>).type === "enabled";
}

let messageCounter = 0;
let toolUseCounter = 0;

function toolUseId(call: ScriptedToolCall): string {
  if (call.id !== undefined && call.id !== "") return call.id;
  toolUseCounter += 1;
  return `toolu_scripted_${toolUseCounter}`;
}

function input(call: ScriptedToolCall): unknown {
  if (typeof call.arguments !== "string") return call.arguments;
  try {
    return JSON.parse(call.argumentPieces ? call.argumentPieces.join("") : call.arguments);
  } catch {
    return {};
  }
}

/** The blocks of a reply, in the API's order: thinking, text, tool uses. Records issued thinking in the ledger. */
export function anthropicBlocks(step: ReplyStep, request: RecordedRequest, ledger: ThinkingLedger): Block[] {
  const blocks: Block[] = [];
  if (thinkingEnabled(request)) {
    if (step.thinking !== undefined) blocks.push({ type: "thinking", thinking: step.thinking, signature: ledger.sign(step.thinking) });
    if (step.redactedThinking !== undefined) blocks.push({ type: "redacted_thinking", data: step.redactedThinking });
  }
  const thinking = JSON.stringify(blocks);
  if (step.content !== undefined && step.content !== null && step.content !== "") blocks.push({ type: "text", text: step.content });
  const uses = (step.toolCalls ?? []).map((call) => ({ type: "tool_use", id: toolUseId(call), name: call.name, input: input(call) }));
  blocks.push(...uses);
  if (blocks.some((block) => block.type === "thinking" || block.type === "redacted_thinking")) ledger.issued(uses.map((use) => use.id), thinking);
  return blocks;
}

export function anthropicUsage(step: ReplyStep): Record<string, number> {
  const usage = step.usage === undefined ? { prompt: 10, completion: 5 } : step.usage;
  if (usage === null) return { input_tokens: 0, output_tokens: 0 };
  const cached = usage.cached ?? 0;
  const written = usage.cacheWritten ?? 0;
  return { input_tokens: usage.prompt - cached - written, cache_creation_input_tokens: written, cache_read_input_tokens: cached, output_tokens: usage.completion };
}

export function anthropicMessageBody(step: ReplyStep, request: RecordedRequest, ledger: ThinkingLedger): Record<string, unknown> {
  messageCounter += 1;
  return {
    id: `msg_scripted_${messageCounter}`,
    type: "message",
    role: "assistant",
    model: String(request.body?.model ?? ""),
    content: anthropicBlocks(step, request, ledger),
    stop_reason: anthropicStopReason(step),
    stop_sequence: null,
    usage: anthropicUsage(step),
  };
}

export function anthropicEvent(data: Record<string, unknown>): string {
  return `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The SSE events of a streamed reply, each complete. `stream.done: false` leaves out `message_stop`. */
export function anthropicEvents(step: ReplyStep, request: RecordedRequest, ledger: ThinkingLedger): string[] {
  const body = anthropicMessageBody(step, request, ledger);
  const size = Math.max(1, step.stream?.chunkSize ?? 8);
  const usage = body.usage as Record<string, number>;
  const events = [
    anthropicEvent({ type: "message_start", message: { ...body, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }),
    anthropicEvent({ type: "ping" }),
  ];
  (body.content as Block[]).forEach((block, index) => {
    const delta = (value: Record<string, unknown>) => events.push(anthropicEvent({ type: "content_block_delta", index, delta: value }));
    switch (block.type) {
      case "text":
        events.push(anthropicEvent({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
        for (const piece of pieces(String(block.text), size)) delta({ type: "text_delta", text: piece });
        break;
      case "thinking":
        events.push(anthropicEvent({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }));
        for (const piece of pieces(String(block.thinking), size)) delta({ type: "thinking_delta", thinking: piece });
        delta({ type: "signature_delta", signature: block.signature });
        break;
      case "tool_use": {
        events.push(anthropicEvent({ type: "content_block_start", index, content_block: { ...block, input: {} } }));
        const call = step.toolCalls?.find((candidate) => candidate.name === block.name && (candidate.id === undefined || candidate.id === "" || candidate.id === block.id));
        // Streamed as the script wrote it, so a model's broken JSON arrives broken, as it would.
        const text = call === undefined ? JSON.stringify(block.input) : typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
        const json = call?.argumentPieces ?? pieces(text, size);
        for (const piece of json) delta({ type: "input_json_delta", partial_json: piece });
        break;
      }
      default:
        events.push(anthropicEvent({ type: "content_block_start", index, content_block: block }));
    }
    events.push(anthropicEvent({ type: "content_block_stop", index }));
  });
  events.push(anthropicEvent({ type: "message_delta", delta: { stop_reason: body.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }));
  if (step.stream?.done ?? true) events.push(anthropicEvent({ type: "message_stop" }));
  return events;
}

export function anthropicErrorBody(message: string, type: string): Record<string, unknown> {
  return { type: "error", error: { type, message } };
}

const ERROR_TYPES: Record<number, string> = { 400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error" };

export function anthropicErrorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

