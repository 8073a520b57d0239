/**
 * A size estimate of a request in tokens that errs on the large side, so that a request judged to fit
 * does fit: every character outside ASCII counts as a whole token (CJK text, emoji and escapes run close to
 * one token per character), ASCII counts one token per 3 characters (English prose runs near 4, code and
 * JSON near 3), plus 4 tokens per message for its framing. An image in a tool result counts as
 * `IMAGE_TOKENS`, not as its base64 text: both APIs that take one scale it down to about 1.15 megapixels,
 * some 1,600 tokens at most. No tokenizer is loaded: it would cost start-up time and still not know every
 * endpoint's model.
 */
import type { ChatMessage, ToolMessage } from "../loop/messages.js";

const ASCII_CHARS_PER_TOKEN = 3;
const TOKENS_PER_MESSAGE = 4;
const IMAGE_TOKENS = 1_600;

/** Messages are never changed in place, so each one's estimate is computed once. */
const perMessage = new WeakMap<ChatMessage, number>();

export function estimateTextTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (text.charCodeAt(i) < 0x80) ascii += 1;
    else other += 1;
  }
  return Math.ceil(ascii / ASCII_CHARS_PER_TOKEN) + other;
}

export function estimateMessageTokens(message: ChatMessage): number {
  let tokens = perMessage.get(message);
  if (tokens === undefined) {
    tokens = message.role === "tool" && message.items !== undefined ? toolResultTokens(message) : estimateTextTokens(JSON.stringify(message)) + TOKENS_PER_MESSAGE;
    perMessage.set(message, tokens);
  }
  return tokens;
}

function toolResultTokens(message: ToolMessage): number {
  const items = message.items ?? [];
  const images = items.filter((item) => item.type !== "text").length;
  const text = JSON.stringify({ ...message, items: items.map((item) => (item.type === "text" ? item : { ...item, data: "" })) });
  return estimateTextTokens(text) + images * IMAGE_TOKENS + TOKENS_PER_MESSAGE;
}

export function estimateMessagesTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}
