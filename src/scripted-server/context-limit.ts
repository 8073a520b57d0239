/**
 * The scripted server's context window: a request whose messages and tools exceed a number of characters
 * (the scripted model counts one character as one token) is refused with HTTP 400, in the error shape and
 * wording of a real provider, before any script step is used.
 */
import type { ChatRequestBody, Dialect, StatusFault } from "./wire-shapes.js";

export type ContextLimitWording = "openai" | "deepseek" | "lmstudio" | "llama.cpp" | "anthropic" | "responses";

export interface ContextLimit {
  /** The most characters of `JSON.stringify({ messages, tools })` accepted. */
  chars: number;
  /** Default: the dialect's own (`openai`, code `context_length_exceeded`, for Chat Completions). */
  wording?: ContextLimitWording;
}

/** The size the limit is compared with (the history, the tools, and a system prompt sent apart from it). */
export function requestSize(body: ChatRequestBody): number {
  const system = body.system ?? body.instructions;
  return JSON.stringify({ messages: body.messages ?? body.input, tools: body.tools, ...(system !== undefined ? { system } : {}) }).length;
}

const DIALECT_WORDING: Record<Dialect, ContextLimitWording> = { chat: "openai", anthropic: "anthropic", responses: "responses" };

/** The refusal for a request over the limit, or `undefined` when it fits. */
export function contextLimitRefusal(body: ChatRequestBody, limit: ContextLimit, dialect: Dialect = "chat"): StatusFault | undefined {
  const size = requestSize(body);
  if (size <= limit.chars) return undefined;
  const window = limit.chars;
  switch (limit.wording ?? DIALECT_WORDING[dialect]) {
    case "anthropic":
      return refusal({ type: "error", error: { type: "invalid_request_error", message: `prompt is too long: ${size} tokens > ${window} maximum` } });
    case "responses":
      return refusal({
        error: {
          message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
          type: "invalid_request_error",
          param: "input",
          code: "context_length_exceeded",
        },
      });
    case "openai":
      return refusal({
        error: {
          message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${size} tokens. Please reduce the length of the messages.`,
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      });
    case "deepseek":
      return refusal({
        error: {
          message: `This model's maximum context length is ${window} tokens. However, you requested ${size} tokens (${size} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`,
          type: "invalid_request_error",
          param: null,
          code: "invalid_request_error",
        },
      });
    case "lmstudio":
      return refusal({
        error: `Trying to keep the first ${size} tokens when context the overflows. However, the model is loaded with context length of only ${window} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input`,
      });
    case "llama.cpp":
      return refusal({
        error: {
          code: 400,
          message: `request (${size} tokens) exceeds the available context size (${window} tokens), try increasing it`,
          type: "exceed_context_size_error",
          n_prompt_tokens: size,
          n_ctx: window,
        },
      });
  }
}

function refusal(body: unknown): StatusFault {
  return { fault: "status", status: 400, body };
}
