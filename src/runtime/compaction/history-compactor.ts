/**
 * Keeps the loop's history within the context window. Before a request, when the window is known and the
 * estimated request plus a reserve for the answer exceeds it, the history is compacted until it fits;
 * after the endpoint refuses a request for its length, one compaction step makes the next request strictly
 * smaller. The steps, cheapest and most cache-friendly first: elide older tool results (oldest first),
 * then summarise the oldest stretch of conversation through the same model; when neither is possible the
 * conversation does not fit. Every step is reported (an event) and recorded (a transcript line).
 */
import type { ToolDefinition } from "../../shared/schemas-file.js";
import type { ApiFailure, CompactionEvent } from "../loop/agent-events.js";
import type { ChatMessage } from "../loop/messages.js";
import type { TokenUsage, TurnRequester } from "../loop/types.js";
import { addUsage, describeFailure } from "../loop/run-accounting.js";
import type { CompactionRecord, CompactionReplacement } from "./compaction-record.js";
import { isContextLengthRefusal } from "./context-length-refusal.js";
import { elisionCandidates } from "./elide-tool-results.js";
import { estimateMessagesTokens, estimateMessageTokens, estimateTextTokens } from "./estimate-tokens.js";
import { cleanEnd, historyParts, summaryRegions } from "./history-parts.js";
import { summaryMessage, summaryRequestMessages } from "./summarize-history.js";

export interface HistoryCompactorOptions {
  /** Tokens; `undefined`: unknown, only the endpoint's refusal starts a compaction. */
  contextWindow: number | undefined;
  requestTurn: TurnRequester;
  model: string;
  stream: boolean;
  /** The tools sent with every request (they count towards its size). */
  tools: readonly ToolDefinition[];
  /** The loop's history, changed in place. */
  history: ChatMessage[];
  onCompaction(event: CompactionEvent, record: CompactionRecord): void;
}

/** How a compaction attempt ended. */
export type CompactionOutcome =
  | { kind: "fits" }
  | { kind: "compacted" }
  /** Nothing more can be compacted and the request still does not fit. */
  | { kind: "does_not_fit"; tokens: number }
  | { kind: "api_error"; error: ApiFailure }
  | { kind: "interrupted" };

export interface HistoryCompactor {
  /** Before a request: compacts until the request fits a known window (nothing when unknown). */
  fitWindow(currentPrompt: ChatMessage | undefined, signal: AbortSignal, usage: TokenUsage): Promise<CompactionOutcome>;
  /** After the endpoint refused the request as too long: one step, so the next request is strictly smaller. */
  shrinkAfterRefusal(currentPrompt: ChatMessage | undefined, signal: AbortSignal, usage: TokenUsage): Promise<CompactionOutcome>;
}

/** Room left for the answer: a quarter of the window, at most 8,192 tokens. */
export function answerReserve(contextWindow: number): number {
  return Math.min(8_192, Math.floor(contextWindow / 4));
}

export function createHistoryCompactor(options: HistoryCompactorOptions): HistoryCompactor {
  const { history, contextWindow } = options;
  const toolsTokens = options.tools.length > 0 ? estimateTextTokens(JSON.stringify(options.tools)) : 0;
  const requestTokens = (): number => estimateMessagesTokens(history) + toolsTokens;
  const limit = contextWindow === undefined ? undefined : contextWindow - answerReserve(contextWindow);

  const report = (step: "elide" | "summarize", reason: CompactionEvent["reason"], replace: CompactionReplacement[], messages: number, before: number): void => {
    const after = requestTokens();
    options.onCompaction(
      { type: "compaction", step, reason, messages, tokensBefore: before, tokensAfter: after, ...(contextWindow !== undefined ? { contextWindow } : {}) },
      { compaction: { step, tokens_before: before, tokens_after: after, replace } },
    );
  };

  /** Elides oldest first until the request is within `target` tokens (all of them without a target). */
  const elide = (currentPrompt: ChatMessage | undefined, reason: CompactionEvent["reason"], target?: number): boolean => {
    const before = requestTokens();
    let size = before;
    const replace: CompactionReplacement[] = [];
    for (const { index, message } of elisionCandidates(history, currentPrompt)) {
      if (target !== undefined && size <= target) break;
      const old = history[index];
      if (old === undefined) continue;
      size += estimateMessageTokens(message) - estimateMessageTokens(old);
      history[index] = message;
      replace.push({ start: index, count: 1, message });
    }
    if (replace.length === 0) return false;
    report("elide", reason, replace, replace.length, before);
    return true;
  };

  /** Summarises the oldest stretch whose summary request fits `requestLimit`; false when none can be. */
  const summarize = async (
    currentPrompt: ChatMessage | undefined,
    reason: CompactionEvent["reason"],
    requestLimit: number | undefined,
    signal: AbortSignal,
    usage: TokenUsage,
  ): Promise<boolean | Exclude<CompactionOutcome, { kind: "fits" | "compacted" | "does_not_fit" }>> => {
    const parts = historyParts(history, currentPrompt);
    for (const [start, regionEnd] of summaryRegions(history, parts)) {
      let end = regionEnd;
      while (end > start && requestLimit !== undefined && estimateMessagesTokens(summaryRequestMessages(history.slice(start, end))) > requestLimit) {
        end = cleanEnd(history, start, end - 1);
      }
      if (end <= start) continue;
      const excerpt = history.slice(start, end);
      let summary: string;
      try {
        const turn = await options.requestTurn({ model: options.model, messages: summaryRequestMessages(excerpt), tools: [], stream: options.stream, signal });
        addUsage(usage, turn.usage);
        summary = turn.message.content ?? "";
      } catch (error) {
        if (signal.aborted) return { kind: "interrupted" };
        if (isContextLengthError(error)) continue;
        return { kind: "api_error", error: describeFailure(error) };
      }
      const message = summaryMessage(summary, excerpt.length);
      if (summary.trim() === "" || estimateMessageTokens(message) >= estimateMessagesTokens(excerpt)) continue;
      const before = requestTokens();
      history.splice(start, excerpt.length, message);
      report("summarize", reason, [{ start, count: excerpt.length, message }], excerpt.length, before);
      return true;
    }
    return false;
  };

  return {
    async fitWindow(currentPrompt, signal, usage) {
      if (limit === undefined || requestTokens() <= limit) return { kind: "fits" };
      elide(currentPrompt, "window", limit);
      while (requestTokens() > limit) {
        const done = await summarize(currentPrompt, "window", limit, signal, usage);
        if (typeof done === "object") return done;
        if (!done) return { kind: "does_not_fit", tokens: requestTokens() };
      }
      return { kind: "compacted" };
    },
    async shrinkAfterRefusal(currentPrompt, signal, usage) {
      const refused = requestTokens();
      if (elide(currentPrompt, "refused")) return { kind: "compacted" };
      // With no window known, the summary request is kept to half of what was refused.
      const done = await summarize(currentPrompt, "refused", limit ?? Math.floor(refused / 2), signal, usage);
      if (typeof done === "object") return done;
      return done ? { kind: "compacted" } : { kind: "does_not_fit", tokens: refused };
    },
  };
}

/** A requester's rejection that means "the request is too long" (the model client marks it; others are read by their message). */
export function isContextLengthError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  if ((error as { contextLengthExceeded?: unknown }).contextLengthExceeded === true) return true;
  const { message, code, type } = error as { message?: unknown; code?: unknown; type?: unknown };
  return typeof message === "string" && isContextLengthRefusal({ message, code, type });
}
