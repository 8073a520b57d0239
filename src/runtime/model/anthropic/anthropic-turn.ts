/**
 * An Anthropic Messages response as the loop's `ModelTurn`. The content blocks come whole (a plain
 * response) or from stream events (`AnthropicStreamAssembler`); both end as the same `AnthropicReply`:
 * the blocks exactly as received (a thinking block with its signature, a redacted one with its data),
 * the stop reason, the usage. Text blocks are the message's content, `tool_use` blocks its tool calls,
 * and every other block rides in the message's `parts`, to be sent back unchanged.
 *
 * A tool use's arguments are handed on as the JSON text of its input, whatever that input is, so the
 * executor's own rules apply to it as on the other dialects (an input sent as a JSON string is decoded
 * there, with its note). Token counts are taken only as non-negative safe integers (`tokenCount`).
 *
 * The stream is taken as Anthropic sends it: blocks numbered 0, 1, 2… in the order they start, deltas
 * only for a started block, nothing after `message_stop`. An event against that (a block index out of
 * order, a delta for no block) is a broken body (`MalformedStreamError`), never an index to allocate or
 * walk by: an index of 4294967294 would otherwise cost minutes of CPU.
 */
import { isRecord, type RawTurn } from "../assemble-stream.js";
import { normalizeTurn, tokenCount } from "../normalize-turn.js";
import { MalformedStreamError, type StreamEventReader } from "../read-event-stream.js";
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
      .map((block) => ({ id: typeof block.id === "string" ? block.id : "", name: typeof block.name === "string" ? block.name : "", arguments: argumentsOf(block) })),
    finishReason: reply.stopReason === null ? null : (FINISH_REASONS[reply.stopReason] ?? reply.stopReason),
    usage: undefined,
  };
  const turn = normalizeTurn(raw);
  const parts: ProviderPart[] = reply.blocks.filter((block) => block.type !== "text" && block.type !== "tool_use").map((block) => ({ provider: "anthropic", block }));
  if (parts.length > 0) turn.message.parts = parts;
  return { ...turn, ...(reply.usage ? { usage: reply.usage } : {}) };
}

/**
 * Streamed tool inputs whose joined text was no JSON, by block: handed on as that text (the executor says
 * it does not parse). Kept beside the block, not in it, since the block may be sent back (`pause_turn`).
 */
const unparsedInputs = new WeakMap<Block, string>();

/**
 * A tool use's arguments text: its input's JSON (a string input stays a JSON string, so the executor
 * decodes it and says so, rather than it being unwrapped here unseen), or the text that did not parse.
 */
function argumentsOf(block: Block): unknown {
  const unparsed = unparsedInputs.get(block);
  if (unparsed !== undefined) return unparsed;
  return typeof block.input === "string" ? JSON.stringify(block.input) : (block.input ?? "");
}

function textOf(blocks: readonly Block[]): string {
  return blocks.map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("");
}

/**
 * Usage as OpenAI reports it: prompt tokens are every input token (uncached, written to the cache, read
 * from it), cached tokens the ones read.
 */
const INPUT_KEYS = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"] as const;

export function anthropicUsage(usage: unknown, earlier?: TokenUsage): TokenUsage | undefined {
  if (!isRecord(usage)) return earlier;
  // A count that is no token count (negative, fractional, 1e308) is left out as if it were not sent.
  const inputs = INPUT_KEYS.map((key) => tokenCount(usage[key])).filter((count) => count !== undefined);
  const output = tokenCount(usage.output_tokens);
  const cached = tokenCount(usage.cache_read_input_tokens) ?? earlier?.cachedTokens;
  return {
    promptTokens: inputs.length > 0 ? inputs.reduce((sum, count) => sum + count, 0) : (earlier?.promptTokens ?? 0),
    completionTokens: output ?? earlier?.completionTokens ?? 0,
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
 * text, thinking, signature or tool input, `message_delta` brings the stop reason and the output tokens,
 * `message_stop` ends the read (`ended`).
 */
export class AnthropicStreamAssembler implements StreamEventReader<unknown> {
  /** The blocks in the order they started: a block's index is its place here (checked as each starts). */
  private readonly blocks: Block[] = [];
  private readonly inputs = new Map<number, string>();
  private stopReason: string | null = null;
  private usage: TokenUsage | undefined;
  /** `message_stop` arrived: the response is complete. */
  stopped = false;
  started = false;

  get ended(): boolean {
    return this.stopped;
  }

  /** Adds one event; returns the text it adds to the answer, if any. Throws `MalformedStreamError` on a block index out of order. */
  add(event: unknown): string | undefined {
    if (!isRecord(event)) throw new TypeError("a stream event is not a JSON object");
    switch (event.type) {
      case "message_start":
        this.started = true;
        this.usage = anthropicUsage(isRecord(event.message) ? event.message.usage : undefined);
        return undefined;
      case "content_block_start":
        if (isRecord(event.content_block)) this.startBlock(event.index, event.content_block);
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
    return { blocks: [...this.blocks], stopReason: this.stopReason, usage: this.usage };
  }

  /** Opens the next block, or opens again one already started; any other index is refused. */
  private startBlock(index: unknown, content: Record<string, unknown>): void {
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index > this.blocks.length) {
      throw new MalformedStreamError(`content_block_start has index ${blockIndexText(index)}, not the next block's (${this.blocks.length} started before it)`);
    }
    const block = { ...content };
    // The input arrives as JSON text in deltas; the start's `{}` is only a placeholder when any come.
    if (block.type === "tool_use") this.inputs.set(index, "");
    else this.inputs.delete(index);
    this.blocks[index] = block;
  }

  private addDelta(event: Record<string, unknown>): string | undefined {
    const index = event.index;
    const delta = event.delta;
    if (!isRecord(delta)) return undefined;
    // A delta for a block never started has nothing to belong to: the stream lost its start.
    const block = typeof index === "number" && Number.isInteger(index) && index >= 0 ? this.blocks[index] : undefined;
    if (typeof index !== "number" || block === undefined) {
      throw new MalformedStreamError(`content_block_delta for block ${blockIndexText(index)}, which never started (${this.blocks.length} started)`);
    }
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
      unparsedInputs.set(block, text);
    }
  }
}

/** An index as a message shows it, bounded whatever the stream sent. */
function blockIndexText(index: unknown): string {
  const text = typeof index === "number" ? String(index) : index === undefined ? "missing" : JSON.stringify(index);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
