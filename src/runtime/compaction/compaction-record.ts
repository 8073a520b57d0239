/**
 * A compaction as the transcript records it: one JSON line of its own beside the message lines, which
 * all stay in the file. `replace` lists replacements applied one after another, each `start`/`count`
 * relative to the history as the earlier ones left it; replaying the message lines and these records in
 * file order rebuilds the history exactly as the loop held it.
 *
 * `{"compaction":{"step":"elide","tokens_before":N,"tokens_after":M,"replace":[{"start":5,"count":1,"message":{"role":"tool",…}}]}}`
 */
import type { ChatMessage } from "../loop/messages.js";

export interface CompactionReplacement {
  start: number;
  count: number;
  message: ChatMessage;
}

export interface CompactionRecord {
  compaction: {
    step: "elide" | "summarize";
    /** The estimated size of the history before and after, in tokens. */
    tokens_before: number;
    tokens_after: number;
    replace: CompactionReplacement[];
  };
}

/** Replaces in place; returns a problem when the record does not fit `history` (a transcript edited by hand). */
export function applyCompaction(
  history: ChatMessage[],
  record: CompactionRecord,
  messageProblem: (value: unknown) => string | undefined,
): string | undefined {
  for (const entry of record.compaction.replace as unknown[]) {
    if (typeof entry !== "object" || entry === null) return "a compaction's replacement must be an object";
    const { start, count, message } = entry as CompactionReplacement;
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(count) || start < 0 || count < 1 || start + count > history.length) {
      return `a compaction replaces messages ${start}…${start + count - 1}, but the history has ${history.length}`;
    }
    const problem = messageProblem(message);
    if (problem !== undefined) return `a compaction's message is not a chat message: ${problem}`;
    const replaced = history[start];
    if (count === 1 && replaced?.role === "tool" && (message.role !== "tool" || message.tool_call_id !== replaced.tool_call_id)) {
      return "a compaction replaces a tool result with something that does not answer the same call";
    }
    history.splice(start, count, message);
  }
  return undefined;
}

/** A transcript line's value is a compaction record (its shape is checked by `applyCompaction`). */
export function isCompactionRecord(value: unknown): value is CompactionRecord {
  if (typeof value !== "object" || value === null || !("compaction" in value)) return false;
  const body = (value as { compaction: unknown }).compaction;
  return typeof body === "object" && body !== null && Array.isArray((body as { replace?: unknown }).replace);
}
