/**
 * Recognises an endpoint's refusal of a request for its length, across providers: OpenAI's error code and
 * the wordings other OpenAI-compatible servers use. The one place this list lives; each entry has a test
 * with the provider's real message (test/runtime/compaction/context-length-refusal.test.ts).
 */

/** Error codes (the `code` or `type` of the error body) that mean "the request is too long". */
const REFUSAL_CODES: readonly string[] = [
  // OpenAI
  "context_length_exceeded",
  // llama.cpp's server, and Ollama since it reports overflows instead of truncating
  "exceed_context_size_error",
];

/** Message wordings, for servers that send no such code (or put it only in the text). */
export const CONTEXT_LENGTH_WORDINGS: readonly { provider: string; pattern: RegExp }[] = [
  // OpenAI, DeepSeek, vLLM (V0 engine), and OpenRouter ("This endpoint's maximum context length is …")
  { provider: "OpenAI, DeepSeek, vLLM, OpenRouter", pattern: /maximum context length is \d+/i },
  // vLLM's V1 engine: "The decoder prompt (length N) is longer than the maximum model length of M" /
  // "Prompt length of N is longer than the maximum model length of M"
  { provider: "vLLM", pattern: /is longer than the maximum model length/i },
  // llama.cpp's server and Ollama: "request (N tokens) exceeds the available context size (M tokens), try
  // increasing it"; older llama.cpp servers: "the request exceeds the available context size, try increasing it"
  { provider: "llama.cpp server, Ollama", pattern: /exceeds the available context size/i },
  // Ollama's older wording
  { provider: "Ollama", pattern: /input length exceeds the context length/i },
  // LM Studio: "Trying to keep the first N tokens when context the overflows. However, the model is loaded
  // with context length of only M tokens, which is not enough."
  { provider: "LM Studio", pattern: /context length of only \d+ tokens/i },
  // LM Studio's newer wording: "The number of tokens to keep from the initial prompt is greater than the
  // context length (n_keep: N>= n_ctx: M). Try to load the model with a larger context length, …"
  { provider: "LM Studio (newer)", pattern: /tokens to keep from the initial prompt is greater than the context length/i },
  // Anthropic: "prompt is too long: 208310 tokens > 200000 maximum"
  { provider: "Anthropic", pattern: /prompt is too long: \d+ tokens > \d+ maximum/i },
  // Anthropic, when the input fits but not with max_tokens (and a smaller max_tokens would not help):
  // "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again"
  { provider: "Anthropic (max_tokens)", pattern: /input length and `?max_tokens`? exceed context limit/i },
  // OpenAI's Responses API (in `response.failed` and `error` events too): "Your input exceeds the context window of this model. …"
  { provider: "OpenAI Responses", pattern: /input exceeds the context window of this model/i },
];

export interface EndpointRefusal {
  /** The error body's `code` and `type`, when it had them. */
  code?: unknown;
  type?: unknown;
  message: string;
}

/** True when the endpoint refused the request because it does not fit the model's context window. */
export function isContextLengthRefusal(refusal: EndpointRefusal): boolean {
  if (typeof refusal.code === "string" && REFUSAL_CODES.includes(refusal.code)) return true;
  if (typeof refusal.type === "string" && REFUSAL_CODES.includes(refusal.type)) return true;
  if (REFUSAL_CODES.some((code) => refusal.message.includes(code))) return true;
  return CONTEXT_LENGTH_WORDINGS.some(({ pattern }) => pattern.test(refusal.message));
}
