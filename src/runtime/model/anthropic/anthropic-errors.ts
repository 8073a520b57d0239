/**
 * What the Anthropic SDK throws, as the `ModelRequestError` every requester rejects with. Its error
 * classes mirror the `openai` SDK's (both are generated from one template), so each is re-expressed as
 * its `openai` twin and translated by the one classification (model-errors.ts); then what the message
 * and hint say is made Anthropic's: its variables, its error body (`{ type: "error", error: { type,
 * message } }`), its context-window wordings.
 */
import * as AnthropicErrors from "@anthropic-ai/sdk";
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { toModelRequestError, type FailureContext, ModelRequestError } from "../model-errors.js";

export function anthropicRequestError(error: unknown, context: FailureContext): ModelRequestError {
  const made = toModelRequestError(asOpenAIError(error), context);
  if (made.hint === undefined) return made;
  return new ModelRequestError({
    kind: made.kind,
    message: made.message,
    retryable: made.retryable,
    hint: anthropicHint(made.hint),
    ...(made.status !== undefined ? { status: made.status } : {}),
    ...(made.contextLengthExceeded ? { contextLengthExceeded: true } : {}),
  });
}

function asOpenAIError(error: unknown): unknown {
  if (!(error instanceof AnthropicErrors.AnthropicError)) return error;
  if (error instanceof AnthropicErrors.APIUserAbortError) return new APIUserAbortError();
  if (error instanceof AnthropicErrors.APIConnectionTimeoutError) return new APIConnectionTimeoutError();
  if (error instanceof AnthropicErrors.APIConnectionError) {
    return new APIConnectionError({ message: error.message, ...(error.cause instanceof Error ? { cause: error.cause } : {}) });
  }
  if (error instanceof AnthropicErrors.APIError) {
    const body = { message: error.apiMessage ?? error.message.replace(/^\d{3} /, ""), type: error.type ?? undefined, code: error.errorCode ?? error.type ?? undefined };
    return new APIError(error.status, body, error.message, error.headers);
  }
  return new Error(error.message);
}

function anthropicHint(hint: string): string {
  return hint
    .replaceAll("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
    .replace("OPENAI_BASE_URL ends at the API root, e.g. /v1", "ANTHROPIC_BASE_URL is the API root without /v1")
    .replace("OPENAI_BASE_URL points at its API root (e.g. http://localhost:8080/v1)", "ANTHROPIC_BASE_URL points at its API root (without /v1)")
    .replaceAll("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL");
}
