/** Each provider's real "too long" refusal is recognised; other 400s are not. */
import { describe, expect, it } from "vitest";
import { CONTEXT_LENGTH_WORDINGS, isContextLengthRefusal } from "../../../src/runtime/compaction/context-length-refusal.js";

const REFUSALS: Array<{ provider: string; code?: string; type?: string; message: string }> = [
  {
    provider: "OpenAI (code)",
    code: "context_length_exceeded",
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages.",
  },
  {
    provider: "DeepSeek",
    code: "invalid_request_error",
    message: "This model's maximum context length is 65536 tokens. However, you requested 66343 tokens (62247 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
  },
  {
    provider: "vLLM",
    message: "This model's maximum context length is 4096 tokens. However, you requested 8213 tokens (6683 in the messages, 730 in the functions, and 800 in the completion). Please reduce the length of the messages, functions, or completion.",
  },
  { provider: "vLLM V1", message: "The decoder prompt (length 21535) is longer than the maximum model length of 16384. Make sure that `max_model_len` is no smaller than the number of text tokens." },
  {
    provider: "OpenRouter",
    message: "This endpoint's maximum context length is 131072 tokens. However, you requested about 138956 tokens (7884 of text input, 131072 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.",
  },
  { provider: "llama.cpp server", type: "exceed_context_size_error", message: "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it" },
  { provider: "llama.cpp server (message only)", message: "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it" },
  { provider: "llama.cpp server (older)", message: "the request exceeds the available context size, try increasing it" },
  {
    provider: "llama.cpp server (2025, sent as HTTP 500)",
    type: "exceed_context_size_error",
    message: "the request exceeds the available context size. try increasing the context size or enable context shift",
  },
  {
    provider: "Ollama (OpenAI-compatible, wrapped)",
    message: '{"error":{"code":400,"message":"request (351 tokens) exceeds the available context size (256 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":351,"n_ctx":256}}',
  },
  { provider: "Ollama (older)", message: "the input length exceeds the context length" },
  {
    provider: "LM Studio",
    message: "Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input",
  },
  {
    provider: "LM Studio (newer)",
    message: "The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input.",
  },
  { provider: "Anthropic", type: "invalid_request_error", message: "prompt is too long: 208310 tokens > 200000 maximum" },
  {
    provider: "Anthropic (max_tokens)",
    type: "invalid_request_error",
    message: "input length and `max_tokens` exceed context limit: 199000 + 21333 > 200000, decrease input length or `max_tokens` and try again",
  },
  { provider: "OpenAI Responses", message: "Your input exceeds the context window of this model. Please adjust your input and try again." },
];

describe("a provider's refusal of a request as too long", () => {
  it.each(REFUSALS)("$provider", (refusal) => {
    expect(isContextLengthRefusal(refusal)).toBe(true);
  });

  it("every wording in the list is exercised by a refusal above", () => {
    for (const { provider, pattern } of CONTEXT_LENGTH_WORDINGS) {
      expect(REFUSALS.some((refusal) => pattern.test(refusal.message)), provider).toBe(true);
    }
  });

  it.each([
    { message: "Invalid 'messages[2].tool_call_id': not found", code: "invalid_request_error" },
    { message: "The model `gpt-9` does not exist or you do not have access to it.", code: "model_not_found" },
    { message: "'max_tokens' must be at most 4096" },
    { message: "Rate limit reached for requests", type: "rate_limit_exceeded" },
  ])("not: $message", (refusal) => {
    expect(isContextLengthRefusal(refusal)).toBe(false);
  });
});
