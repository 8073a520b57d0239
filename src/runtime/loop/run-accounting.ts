/**
 * What a run adds up and how it describes a failed request: shared by the loop and the requests it makes
 * on its own behalf (compaction's summaries).
 */
import type { ApiFailure } from "./agent-events.js";
import type { TokenUsage } from "./types.js";

export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** The model client rejects with a typed error; anything else (a custom requester's bug) is described as best it can be. */
export function describeFailure(error: unknown): ApiFailure {
  if (typeof error === "object" && error !== null && "kind" in error && "message" in error) {
    const { kind, message, status, hint } = error as { kind: unknown; message: unknown; status?: unknown; hint?: unknown };
    if (typeof kind === "string" && typeof message === "string") {
      return {
        kind,
        message,
        ...(typeof status === "number" ? { status } : {}),
        ...(typeof hint === "string" ? { hint } : {}),
      };
    }
  }
  return { kind: "unexpected", message: errorText(error) };
}

export function addUsage(total: TokenUsage, turn: TokenUsage | undefined): void {
  if (!turn) return;
  total.promptTokens += turn.promptTokens;
  total.completionTokens += turn.completionTokens;
  if (turn.cachedTokens !== undefined) total.cachedTokens = (total.cachedTokens ?? 0) + turn.cachedTokens;
}
