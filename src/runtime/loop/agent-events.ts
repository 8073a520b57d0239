/**
 * What an agent run reports while it works (events) and how it ends (result). Progress output, logs and
 * embedding programs all read these values; nothing else of the loop's inner state is public.
 */
import type { ChatMessage, ToolCall } from "./messages.js";
import type { FinishReason, TokenUsage, ToolOutcome, ToolReport } from "./types.js";
import type { ToolAnnotations } from "../../shared/schemas-file.js";

/**
 * The result the model reads for one tool call: the executor's outcome, or one of the loop's own verdicts
 * when a hook intervened (`blocked`: `beforeToolCall` refused the call; `hook_error`: a hook threw).
 */
export interface ToolCallResult {
  status: ToolOutcome["status"] | "blocked" | "hook_error";
  /** Exactly the tool message's content. */
  content: string;
  /** A result that holds images or audio: its items (see `ToolOutcome`). */
  items?: ToolOutcome["items"];
}

/** A failed model request, as the model client describes it (status and hint when known; never the key). */
export interface ApiFailure {
  /** `http`, `connection`, `timeout`, `too_large`, `malformed`, `no_choices`, `aborted`, or `unexpected` for anything else. */
  kind: string;
  status?: number;
  message: string;
  /** The next step for the user (which variable to set, what to check). */
  hint?: string;
}

/** How a run ended. A run never throws: every ending is one of these. */
export type RunResult =
  | { kind: "answer"; answer: string; turns: number; usage: TokenUsage }
  /** `maxTurns` model requests were made and none produced an answer. */
  | { kind: "max_turns"; turns: number; maxTurns: number; usage: TokenUsage }
  /** Every attempt was cut off by the token limit (`finish_reason: "length"`). */
  | { kind: "length_exhausted"; turns: number; attempts: number; usage: TokenUsage }
  | { kind: "content_filter"; turns: number; usage: TokenUsage }
  /** The model declined (OpenAI's `refusal`) and gave no answer and no tool calls. */
  | { kind: "refused"; refusal: string; turns: number; usage: TokenUsage }
  | { kind: "unknown_finish"; turns: number; finishReason: FinishReason; usage: TokenUsage }
  | { kind: "api_error"; turns: number; error: ApiFailure; usage: TokenUsage }
  /** The run's signal was aborted (Ctrl-C); history keeps only what was finished. */
  | { kind: "interrupted"; turns: number; usage: TokenUsage }
  /**
   * The conversation does not fit the context window even after every compaction step (the current prompt
   * alone is too large): `tokens` is the estimated size of the request that could not be sent or was refused.
   */
  | { kind: "context_overflow"; turns: number; tokens: number; contextWindow?: number; usage: TokenUsage };

/**
 * One compaction step: older tool results elided (`messages` of them), or `messages` older messages
 * summarised into one. `reason`: the request would exceed the known window, or the endpoint refused it.
 * Sizes are the size estimate's, in tokens.
 */
export interface CompactionEvent {
  type: "compaction";
  step: "elide" | "summarize";
  reason: "window" | "refused";
  messages: number;
  tokensBefore: number;
  tokensAfter: number;
  contextWindow?: number;
}

export type AgentEvent =
  | { type: "run_start"; prompt: string }
  /** Messages appended to history without a model turn: the prompt, and on resume the "interrupted" results. */
  | { type: "message"; message: ChatMessage }
  | { type: "turn_start"; turn: number; maxTurns: number }
  /** Streamed text, for display only: it is not the answer until the turn completes. */
  | { type: "text_delta"; turn: number; text: string }
  | { type: "turn_end"; turn: number; finishReason: FinishReason; usage?: TokenUsage; toolCalls: number }
  /** The turn was cut by the token limit and discarded; the same request is sent again. */
  | { type: "length_retry"; turn: number; attempt: number; maxRetries: number }
  | { type: "tool_call_start"; turn: number; call: ToolCall }
  | { type: "tool_call_end"; turn: number; call: ToolCall; result: ToolCallResult }
  /** What a running tool reported (`toolContext().progress` and `.log`). */
  | { type: "tool_report"; turn: number; call: ToolCall; report: ToolReport }
  /** A call that needs approval is put to `approve` (the validated call; `preview`: a file tool's diff). */
  | { type: "approval_requested"; turn: number; call: ToolCall; annotations: ToolAnnotations; preview?: string }
  /** What was decided; a refused call does not run, and the model reads why. */
  | { type: "approval_decided"; turn: number; call: ToolCall; approved: boolean; reason?: string }
  /** Tool calls of a resumed history that never got a result; each now has an "interrupted" one. */
  | { type: "interrupted_calls_answered"; toolCallIds: string[] }
  /** The transcript sink threw; it gets no further messages, so the file ends as if the process had stopped there. */
  | { type: "transcript_failed"; error: string }
  | CompactionEvent
  | { type: "run_end"; result: RunResult };
