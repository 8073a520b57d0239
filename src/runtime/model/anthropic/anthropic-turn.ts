/**
 * An Anthropic Messages response as the loop's `ModelTurn`. The content blocks come whole (a plain
 * response) or from stream events (`AnthropicStreamAssembler`); both end as the same `AnthropicReply`:
 * the blocks exactly as received (a thinking block with its signature, a redacted one with its data),
 * the stop reason, the usage. Text blocks are the message's content, `tool_use` blocks its tool calls,
 * and every other block rides in the message's `parts`, to be sent back unchanged.
 */
import { isRecord, type RawTurn } from "../assemble-stream.js";
import { normalizeTurn } from "../normalize-turn.js";
import type { ProviderPart } from "../../loop/messages.js";
import type { ModelTurn, TokenUsage } from "../../loop/types.js";

export type Block = Record<string, unknown>;

export interface AnthropicReply {
  blocks: Block[];
  /** `null`: the response never said (a stream cut before `message_delta`). */
  stopReason: string | null;
  usage: TokenUsage | undefined;
}

/** How `stop_reason` reads for the loop; `pause_turn`, `refusal` and the context window are handled before. */
const FINISH_REASONS: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
};

/** The loop's turn. A `refusal` stop keeps nothing of what came before it as an answer. */
export function anthropicTurn(reply: AnthropicReply): ModelTurn {
  if (reply.stopReason === "refusal") {
    const said = textOf(reply.blocks);
    return {
      message: { role: "assistant", content: "" },
      finishReason: "stop",
      refusal: said === "" ? "the model declined to answer (stop_reason refusal)" : said,
      ...(reply.usage ? { usage: reply.usage } : {}),
    };
  }
  const raw: RawTurn = {
    content: textOf(reply.blocks),
    refusal: "",
    toolCalls: reply.blocks
      .filter((block) => block.type === "tool_use")
      .map((block) => ({ id: typeof block.id === "string" ? block.id : "", name: typeof block.name === "string" ? block.name : "", arguments: block.input ?? "" })),
    finishReason: reply.stopReason === null ? null : (FINISH_REASONS[reply.stopReason] ?? reply.stopReason),
    usage: undefined,
  };
  const turn = normalizeTurn(raw);
  const parts: ProviderPart[] = reply.blocks.filter((block) => block.type !== "text" && block.type !== "tool_use").map((block) => ({ provider: "anthropic", block }));
  if (parts.length > 0) turn.message.parts = parts;
  return { ...turn, ...(reply.usage ? { usage: reply.usage } : {}) };
}

function textOf(blocks: readonly Block[]): string {
  return blocks.map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("");
}

/**
 * Usage as OpenAI reports it: prompt tokens are every input token (uncached, written to the cache, read
 * from it), cached tokens the ones read.
 */
export function anthropicUsage(usage: unknown, earlier?: TokenUsage): TokenUsage | undefined {
  if (!isRecord(usage)) return earlier;
  const count = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
  const input = count("input_tokens") + count("cache_creation_input_tokens") + count("cache_read_input_tokens");
  const hasInput = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"].some((key) => typeof usage[key] === "number");
  const cached = typeof usage.cache_read_input_tokens === "number" ? usage.cache_read_input_tokens : earlier?.cachedTokens;
  return {
    promptTokens: hasInput ? input : (earlier?.promptTokens ?? 0),
    completionTokens: typeof usage.output_tokens === "number" ? usage.output_tokens : (earlier?.completionTokens ?? 0),
    ...(cached !== undefined ? { cachedTokens: cached } : {}),
  };
}

/** The reply of a plain (non-streamed) response. Throws `TypeError` when the body is no message. */
export function anthropicReplyOf(message: unknown): AnthropicReply {
  if (!isRecord(message) || !Array.isArray(message.content)) throw new TypeError("the response holds no message content");
  return {
    blocks: message.content.filter(isRecord),
    stopReason: typeof message.stop_reason === "string" ? message.stop_reason : null,
    usage: anthropicUsage(message.usage),
  };
}

/**
 * Rebuilds the reply from stream events: `content_block_start` opens a block as sent, deltas append to its
 * text, thinking, signature or tool input, `message_delta` brings the stop reason and the output tokens.
 */
export class AnthropicStreamAssembler {
  private readonly blocks: Block[] = [];
  private readonly inputs = new Map<number, string>();
  private stopReason: string | null = null;
  private usage: TokenUsage | undefined;
  /** `message_stop` arrived: the response is complete. */
  stopped = false;
  started = false;

  /** Adds one event; returns the text it adds to the answer, if any. */
  add(event: unknown): string | undefined {
    if (!isRecord(event)) throw new TypeError("a stream event is not a JSON object");
    switch (event.type) {
      case "message_start":
        this.started = true;
        this.usage = anthropicUsage(isRecord(event.message) ? event.message.usage : undefined);
        return undefined;
      case "content_block_start":
        if (typeof event.index === "number" && isRecord(event.content_block)) {
          const block = { ...event.content_block };
          // The input arrives as JSON text in deltas; the start's `{}` is only a placeholder when any come.
          if (block.type === "tool_use") this.inputs.set(event.index, "");
          this.blocks[event.index] = block;
        }
        return undefined;
      case "content_block_delta":
        return this.addDelta(event);
      case "content_block_stop":
        if (typeof event.index === "number") this.closeInput(event.index);
        return undefined;
      case "message_delta":
        if (isRecord(event.delta) && typeof event.delta.stop_reason === "string") this.stopReason = event.delta.stop_reason;
        this.usage = anthropicUsage(event.usage, this.usage);
        return undefined;
      case "message_stop":
        this.stopped = true;
        return undefined;
      default:
        return undefined;
    }
  }

  result(): AnthropicReply {
    for (const index of [...this.inputs.keys()]) this.closeInput(index);
    return { blocks: this.blocks.filter((block) => block !== undefined), stopReason: this.stopReason, usage: this.usage };
  }

  private addDelta(event: Record<string, unknown>): string | undefined {
    const index = event.index;
    const delta = event.delta;
    if (typeof index !== "number" || !isRecord(delta)) return undefined;
    const block = this.blocks[index];
    if (block === undefined) return undefined;
    const append = (key: string, piece: unknown) => {
      if (typeof piece === "string") block[key] = (typeof block[key] === "string" ? (block[key] as string) : "") + piece;
    };
    switch (delta.type) {
      case "text_delta":
        append("text", delta.text);
        return typeof delta.text === "string" && delta.text !== "" ? delta.text : undefined;
      case "thinking_delta":
        append("thinking", delta.thinking);
        return undefined;
      case "signature_delta":
        append("signature", delta.signature);
        return undefined;
      case "input_json_delta":
        if (typeof delta.partial_json === "string") this.inputs.set(index, (this.inputs.get(index) ?? "") + delta.partial_json);
        return undefined;
      default:
        return undefined;
    }
  }

  /** A tool_use block's input: the joined JSON text parsed, kept as text when it does not parse (the executor says so). */
  private closeInput(index: number): void {
    const text = this.inputs.get(index);
    const block = this.blocks[index];
    if (text === undefined || block === undefined) return;
    this.inputs.delete(index);
    if (text === "") return;
    try {
      block.input = JSON.parse(text);
    } catch {
      block.input = text;
    }
  }
}
