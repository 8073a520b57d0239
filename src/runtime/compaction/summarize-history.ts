/**
 * Step 2 of compaction: a stretch of older messages is rendered as plain text and summarised by the same
 * model into one user message, marked as a summary. The summary request offers no tools and carries none
 * of the conversation's structure, so it is valid whatever the stretch held.
 */
import type { ChatMessage, UserMessage } from "../loop/messages.js";
import { SUMMARY_MARK } from "./history-parts.js";

/** Each message is cut to this in the summary request: the summary keeps the gist, not the bodies. */
const MAX_RENDERED_CHARS = 8_000;

export const SUMMARY_SYSTEM_PROMPT =
  "You compress conversations. Summarise the conversation excerpt you are given so that an assistant can continue the work without it: the user's requests, decisions taken, facts learned (file names, values, errors), what was done and what is still open. Be concise; use plain text; do not address the user.";

export function summaryRequestMessages(excerpt: readonly ChatMessage[]): ChatMessage[] {
  return [
    { role: "system", content: SUMMARY_SYSTEM_PROMPT },
    { role: "user", content: `Summarise this excerpt of a conversation (${excerpt.length} messages):\n\n${renderExcerpt(excerpt)}` },
  ];
}

export function summaryMessage(summary: string, replaced: number): UserMessage {
  return {
    role: "user",
    content: `${SUMMARY_MARK}: ${replaced} messages were replaced by this summary to fit the context window; the originals are in the transcript.]\n${summary.trim()}`,
  };
}

function renderExcerpt(excerpt: readonly ChatMessage[]): string {
  return excerpt.map(renderMessage).join("\n\n");
}

function renderMessage(message: ChatMessage): string {
  switch (message.role) {
    case "system":
    case "user":
      return `[${message.role}]\n${cut(message.content)}`;
    case "tool":
      return `[tool result ${message.tool_call_id}]\n${cut(message.content)}`;
    case "assistant": {
      const calls = "tool_calls" in message ? message.tool_calls.map((call) => `[assistant called ${call.function.name}(${cut(call.function.arguments, 500)}) as ${call.id}]`) : [];
      const text = message.content ? [`[assistant]\n${cut(message.content)}`] : [];
      return [...text, ...calls].join("\n");
    }
  }
}

function cut(text: string, max = MAX_RENDERED_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;
}
