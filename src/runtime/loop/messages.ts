/**
 * The chat messages the runtime keeps in history, sends, and writes to the transcript: one history for
 * every provider. In Chat Completions terms they are exactly what a strict gateway accepts: an assistant
 * message holds `role`, `content` and `tool_calls`, `arguments` is always a string, and there is never an
 * empty `tool_calls` array nor `content: null` without tool calls. What only one provider has rides along
 * in two optional fields that each dialect's requester reads or leaves out (the Chat Completions one never
 * sends them): `parts` on an assistant message (provider-tagged, kept exactly as received) and `status` on
 * a tool result that was not `ok` (Anthropic's `is_error`).
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

/**
 * What one provider sent beside the text and the tool calls, kept exactly as it came because the provider
 * wants it back unchanged: Anthropic's `thinking` and `redacted_thinking` blocks (their signatures
 * included), the Responses API's `reasoning` items (with their encrypted content). Another provider never
 * receives them.
 */
export type ProviderPart =
  | { provider: "anthropic"; block: Readonly<Record<string, unknown>> }
  | { provider: "responses"; item: Readonly<Record<string, unknown>> };

export type Provider = ProviderPart["provider"];

export type AssistantMessage =
  | { role: "assistant"; content: string; parts?: ProviderPart[] }
  | { role: "assistant"; content: string | null; tool_calls: [ToolCall, ...ToolCall[]]; parts?: ProviderPart[] };

/** A tool result's outcome when it was not `ok` (absent: `ok`), so that `is_error` survives a resume. */
export type ToolResultStatus = "invalid_arguments" | "unknown_tool" | "tool_error" | "timeout" | "aborted" | "blocked" | "hook_error" | "denied";

/**
 * One item of a tool result that holds images or audio, in the order the tool returned them; `data` is
 * the bytes in base64.
 */
export type ToolResultItem =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string }
  | { type: "audio"; mimeType: string; data: string };

export interface ToolMessage {
  role: "tool";
  tool_call_id: string;
  /** The result as text: an image or audio item as a one-line note (what Chat Completions is sent). */
  content: string;
  status?: ToolResultStatus;
  /**
   * A result with an image the provider takes in tool results (Anthropic, the Responses API): its items,
   * sent instead of `content`, the media the provider does not take already notes.
   */
  items?: ToolResultItem[];
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;
