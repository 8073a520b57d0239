/**
 * What the CLI says when a run ends, and its exit code. stdout gets the answer and nothing else; every
 * other ending is a message on stderr.
 */
import type { RunResult } from "../runtime/loop/agent-events.js";

export const EXIT = {
  answer: 0,
  maxTurns: 1,
  usage: 2,
  apiError: 3,
  modelStopped: 4,
  schemas: 5,
  /** The conversation does not fit the context window, even compacted. */
  contextOverflow: 6,
  /** A bug in sigloop itself: reported in one line, without a stack trace. */
  internal: 70,
  interrupted: 130,
} as const;

export interface ResultReport {
  exitCode: number;
  /** For stdout: the answer, ending with a newline. */
  stdout?: string;
  /** For stderr. */
  message?: string;
}

export function reportResult(result: RunResult): ResultReport {
  switch (result.kind) {
    case "answer":
      return { exitCode: EXIT.answer, stdout: result.answer.endsWith("\n") ? result.answer : `${result.answer}\n` };
    case "max_turns":
      return {
        exitCode: EXIT.maxTurns,
        message: `Stopped: the turn limit was reached (${result.maxTurns} model requests) without an answer. Raise it with --max-turns N (e.g. --max-turns ${result.maxTurns * 2}).`,
      };
    case "api_error":
      return {
        exitCode: EXIT.apiError,
        message: `API error: ${result.error.message}${result.error.hint ? `\nhint: ${result.error.hint}` : ""}`,
      };
    case "length_exhausted":
      return {
        exitCode: EXIT.modelStopped,
        message: `Stopped: all ${result.attempts} responses were cut off by the model's token limit (finish_reason "length") and discarded. Ask for something shorter, or use a model with a larger output limit.`,
      };
    case "content_filter":
      return {
        exitCode: EXIT.modelStopped,
        message: `Stopped: the provider's content filter blocked the response (finish_reason "content_filter"); no tool was run.`,
      };
    case "refused":
      return {
        exitCode: EXIT.modelStopped,
        message: `Stopped: the model refused to answer: ${JSON.stringify(result.refusal)}`,
      };
    case "unknown_finish":
      return {
        exitCode: EXIT.modelStopped,
        message: `Stopped: the model ended its turn with an unknown finish_reason ${JSON.stringify(result.finishReason)}; the turn was not used and no tool was run.`,
      };
    case "interrupted":
      return { exitCode: EXIT.interrupted, message: "interrupted" };
    case "context_overflow": {
      const window = result.contextWindow !== undefined ? `the context window of ${result.contextWindow} tokens` : "the context window (the endpoint refused it as too long)";
      return {
        exitCode: EXIT.contextOverflow,
        message: `Stopped: the conversation does not fit ${window}, even with older tool results elided and older messages summarised (about ${result.tokens} tokens, estimated). Shorten the prompt, start a new conversation, or use a model with a larger window (--context-window TOKENS if the window is larger than assumed).`,
      };
    }
  }
}
