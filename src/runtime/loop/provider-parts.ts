/**
 * The history's provider-only fields (messages.ts): checks for what a transcript line may hold, the Chat
 * Completions wire form of a message (those fields left out), and what resuming on another provider
 * cannot carry over.
 */
import type { ChatMessage, Provider, ProviderPart, ToolResultStatus } from "./messages.js";

const TOOL_RESULT_STATUSES: ReadonlySet<string> = new Set<ToolResultStatus>([
  "invalid_arguments",
  "unknown_tool",
  "tool_error",
  "timeout",
  "aborted",
  "blocked",
  "hook_error",
  "denied",
]);

export function isToolResultStatus(value: unknown): value is ToolResultStatus {
  return typeof value === "string" && TOOL_RESULT_STATUSES.has(value);
}

export function isProviderPart(value: unknown): value is ProviderPart {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const part = value as Record<string, unknown>;
  const payload = part.provider === "anthropic" ? part.block : part.provider === "responses" ? part.item : undefined;
  return typeof payload === "object" && payload !== null && !Array.isArray(payload);
}

/**
 * The message as Chat Completions takes it: without `parts`, `status` and `items` (its `content` already
 * holds a note for each medium). The message itself when it has none of them (the common case costs no copy).
 */
export function chatWireMessage(message: ChatMessage): ChatMessage {
  if (message.role === "assistant" && message.parts !== undefined) {
    const { parts: _parts, ...rest } = message;
    return rest as ChatMessage;
  }
  if (message.role === "tool" && (message.status !== undefined || message.items !== undefined)) {
    const { status: _status, items: _items, ...rest } = message;
    return rest;
  }
  return message;
}

/** The parts of `message` meant for `provider`, in the order they came. */
export function partsFor<P extends Provider>(message: ChatMessage, provider: P): Array<Extract<ProviderPart, { provider: P }>> {
  if (message.role !== "assistant" || message.parts === undefined) return [];
  return message.parts.filter((part): part is Extract<ProviderPart, { provider: P }> => part.provider === provider);
}

/**
 * How many parts of the history belong to another provider than `provider` (they are not sent to it: a
 * thinking block's signature means nothing to OpenAI, an encrypted reasoning item nothing to Anthropic).
 */
export function foreignPartCount(history: readonly ChatMessage[], provider: Provider | "chat"): number {
  let count = 0;
  for (const message of history) {
    if (message.role !== "assistant" || message.parts === undefined) continue;
    for (const part of message.parts) if (part.provider !== provider) count += 1;
  }
  return count;
}

/** The system messages a history starts with (a provider that takes the system prompt apart), and where the rest begins. */
export function leadingSystem(history: readonly ChatMessage[]): { system: string[]; rest: readonly ChatMessage[] } {
  const system: string[] = [];
  for (const message of history) {
    if (message.role !== "system") break;
    system.push(message.content);
  }
  return { system, rest: history.slice(system.length) };
}
