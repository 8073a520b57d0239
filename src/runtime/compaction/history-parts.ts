/**
 * Which parts of a history compaction may touch. Protected, always kept as they are: the system prompt,
 * the current user prompt, and the latest assistant message with the tool results that follow it (the
 * current turn). Everything else is older and may be elided or summarised.
 */
import type { ChatMessage, ToolCall } from "../loop/messages.js";

export interface HistoryParts {
  /** Index of the first message after the system prompt (0 when there is none). */
  afterSystem: number;
  /** Index of the current user prompt, or -1 when it is not in the history. */
  prompt: number;
  /** Index of the latest assistant message (the protected current turn starts there), or the history's length. */
  tail: number;
}

export function historyParts(messages: readonly ChatMessage[], currentPrompt: ChatMessage | undefined): HistoryParts {
  const afterSystem = messages[0]?.role === "system" ? 1 : 0;
  const prompt = currentPrompt === undefined ? -1 : messages.lastIndexOf(currentPrompt);
  let tail = messages.length;
  for (let i = messages.length - 1; i >= afterSystem; i -= 1) {
    if (messages[i]?.role === "assistant") {
      tail = i;
      break;
    }
  }
  return { afterSystem, prompt, tail };
}

/** The call a tool message answers: its calls are in the nearest assistant message before it. */
export function callAnsweredAt(messages: readonly ChatMessage[], index: number): ToolCall | undefined {
  const message = messages[index];
  if (message?.role !== "tool") return undefined;
  for (let i = index - 1; i >= 0; i -= 1) {
    const candidate = messages[i];
    if (candidate?.role === "assistant") {
      return "tool_calls" in candidate ? candidate.tool_calls.find((call) => call.id === message.tool_call_id) : undefined;
    }
  }
  return undefined;
}

/**
 * The stretches of older messages a summary may replace, oldest first: before the current prompt, and
 * between it and the current turn. Each starts and ends where no tool result is cut from its call.
 */
export function summaryRegions(messages: readonly ChatMessage[], parts: HistoryParts): Array<[start: number, end: number]> {
  const bounds: Array<[number, number]> =
    parts.prompt >= parts.afterSystem
      ? [
          [parts.afterSystem, Math.min(parts.prompt, parts.tail)],
          [parts.prompt + 1, parts.tail],
        ]
      : [[parts.afterSystem, parts.tail]];
  return bounds.filter(([start, end]) => end - start >= 1 && messages.slice(start, end).some((message) => !isSummary(message)));
}

/** The largest end ≤ `end` that does not separate a tool result from its call (a message that is not a tool result follows). */
export function cleanEnd(messages: readonly ChatMessage[], start: number, end: number): number {
  let at = end;
  while (at > start && messages[at]?.role === "tool") at -= 1;
  return at;
}

/** Marks the one message that replaces summarised history. */
export const SUMMARY_MARK = "[Summary of earlier conversation";

export function isSummary(message: ChatMessage): boolean {
  return message.role === "user" && message.content.startsWith(SUMMARY_MARK);
}
