/**
 * The scripted server's context window: a request whose messages and tools exceed a number of characters
 * (the scripted model counts one character as one token) is refused with HTTP 400, in the error shape and
 * wording of a real provider, before any script step is used.
 */
import type { ChatRequestBody, StatusFault } from "./wire-shapes.js";

export type ContextLimitWording = "openai" | "deepseek" | "lmstudio" | "llama.cpp";

export interface ContextLimit {
  /** The most characters of `JSON.stringify({ messages, tools })` accepted. */
  chars: number;
  /** Default `openai` (code `context_length_exceeded`). */
  wording?: ContextLimitWording;
}

/** The size the limit is compared with. */
export function requestSize(body: ChatRequestBody): number {
  return JSON.stringify({ messages: body.messages, tools: body.tools }).length;
}

/** The refusal for a request over the limit, or `undefined` when it fits. */
export function contextLimitRefusal(body: ChatRequestBody, limit: ContextLimit): StatusFault | undefined {
  const size = requestSize(body);
  if (size <= limit.chars) return undefined;
  const window = limit.chars;
  switch (limit.wording ?? "openai") {
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
