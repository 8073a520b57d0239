/**
 * The chat messages the runtime keeps in history, sends, and writes to the transcript. They are exactly
 * what a strict gateway accepts: an assistant message holds only `role`, `content` and `tool_calls`,
 * `arguments` is always a string, and there is never an empty `tool_calls` array nor `content: null`
 * without tool calls.
 */

export interface SystemMessage {
  role: "system";
  content: string;
}

export interface UserMessage {
  role: "user";
  content: string;
}

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type AssistantMessage =
  | { role: "assistant"; content: string }
  | { role: "assistant"; content: string | null; tool_calls: [ToolCall, ...ToolCall[]] };

export interface ToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;
