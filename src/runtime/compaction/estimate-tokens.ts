/**
 * A size estimate of a request in tokens that errs on the large side, so that a request judged to fit
 * does fit: every character outside ASCII counts as a whole token (CJK text, emoji and escapes run close to
 * one token per character), ASCII counts one token per 3 characters (English prose runs near 4, code and
 * JSON near 3), plus 4 tokens per message for its framing. No tokenizer is loaded: it would cost start-up
 * time and still not know every endpoint's model.
 */
import type { ChatMessage } from "../loop/messages.js";

const ASCII_CHARS_PER_TOKEN = 3;
const TOKENS_PER_MESSAGE = 4;

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
    tokens = estimateTextTokens(JSON.stringify(message)) + TOKENS_PER_MESSAGE;
    perMessage.set(message, tokens);
  }
  return tokens;
}

export function estimateMessagesTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}
