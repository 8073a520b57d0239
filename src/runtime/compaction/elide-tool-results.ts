/**
 * Step 1 of compaction: the bodies of older tool results are replaced, oldest first, by a one-line note
 * that says what was there and that calling the tool again brings it back. Only the content changes:
 * every tool_call_id keeps its answer, and every message before the first elided one stays byte-identical
 * (the provider's prompt cache keeps that prefix).
 */
import type { ChatMessage, ToolMessage } from "../loop/messages.js";
import { callAnsweredAt, historyParts } from "./history-parts.js";

export const ELIDED_MARK = "[result elided to fit the context window:";

const ARGUMENTS_WIDTH = 200;

export function elisionNote(name: string, args: string, originalLength: number): string {
  const flat = args.replace(/\s+/g, " ").trim();
  const shown = flat.length > ARGUMENTS_WIDTH ? `${flat.slice(0, ARGUMENTS_WIDTH)}…` : flat;
  return `${ELIDED_MARK} ${name}(${shown}) returned ${originalLength.toLocaleString("en-US")} characters here. Call the tool again to see it.]`;
}

/**
 * The older tool results that eliding would make smaller, oldest first, each with its replacement. The
 * current turn (the latest assistant message and its results) is never among them.
 */
export function elisionCandidates(messages: readonly ChatMessage[], currentPrompt: ChatMessage | undefined): Array<{ index: number; message: ToolMessage }> {
  const { tail } = historyParts(messages, currentPrompt);
  const candidates: Array<{ index: number; message: ToolMessage }> = [];
  for (let index = 0; index < tail; index += 1) {
    const message = messages[index];
    if (message?.role !== "tool" || message.content.startsWith(ELIDED_MARK)) continue;
    const call = callAnsweredAt(messages, index);
    const note = elisionNote(call?.function.name ?? "the tool", call?.function.arguments ?? "", message.content.length);
    // A result holding images is always smaller as a note: the images go with it.
    if (message.items !== undefined || note.length < message.content.length) {
      candidates.push({ index, message: { role: "tool", tool_call_id: message.tool_call_id, content: note } });
    }
  }
  return candidates;
}
