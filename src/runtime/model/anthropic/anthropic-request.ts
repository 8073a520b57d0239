/**
 * The history (messages.ts) as an Anthropic Messages request: the leading system messages become
 * `system`; every other message maps to alternating `user` / `assistant` turns (tool results become
 * `tool_result` blocks at the start of the next user turn, in call order, `is_error` for any outcome but
 * ok; a result with images is its text and base64 image blocks, in order); an assistant message sends its Anthropic parts (thinking, redacted thinking, server-tool blocks)
 * exactly as received, then its text, then its `tool_use` blocks. Prompt caching: a breakpoint on the last
 * tool definition and one on the newest message's last block (two of the API's four).
 */
import { createHash } from "node:crypto";
import type { Base64ImageSource, ContentBlockParam, ImageBlockParam, MessageParam, TextBlockParam, Tool, ToolResultBlockParam, ToolUseBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { INTERRUPTED_TOOL_RESULT } from "../../loop/interrupted-tool-calls.js";
import type { ChatMessage, ToolResultItem } from "../../loop/messages.js";
import { isToolResultImage, mediaNote } from "../../loop/tool-result-items.js";
import { leadingSystem, partsFor } from "../../loop/provider-parts.js";
import type { ToolDefinition } from "../../../shared/schemas-file.js";
import { anthropicStrictProblem } from "./anthropic-strict.js";
import { listWireCache, messageWireCache } from "../wire-cache.js";

export interface AnthropicRequestParts {
  system?: string;
  messages: MessageParam[];
  tools?: Tool[];
}

const CACHE = { type: "ephemeral" } as const;

/** Ids Anthropic takes; others (Kimi's `functions.read_file:0`) are mapped when sent. */
const VALID_TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * A tool call id Anthropic accepts: itself when it already is one, else its characters outside
 * `[a-zA-Z0-9_-]` replaced and a hash of the original appended, so that two ids never map to one.
 * Deterministic, so the call and its result map alike on every request; the history keeps the original.
 */
export function anthropicToolId(id: string): string {
  if (VALID_TOOL_ID.test(id)) return id;
  const hash = createHash("sha256").update(id).digest("hex").slice(0, 12);
  return `${id.replace(/[^a-zA-Z0-9_-]/g, "_")}_${hash}`;
}

/**
 * The request parts of a history, each message's blocks made once (wire-cache.ts) and the tool
 * definitions once per list: a run's history grows by a few messages a turn, and converting every earlier
 * one again (its tool calls' arguments parsed again) was O(n) work a request. The blocks are shared
 * between requests and never changed: each request's turns hold copies of the block lists, and the
 * newest block's cache breakpoint is a copy of that block.
 */
export class AnthropicRequestWriter {
  private readonly blocks = messageWireCache(messageBlocks);
  private readonly tools = listWireCache(requestTools);

  parts(history: readonly ChatMessage[], tools: readonly ToolDefinition[]): AnthropicRequestParts {
    const { system, rest } = leadingSystem(history);
    const messages: MessageParam[] = [];
    for (const message of rest) {
      const { role, blocks } = this.blocks.wireOf(message);
      if (blocks.length === 0) continue;
      const last = messages[messages.length - 1];
      // Roles must alternate: a tool result and the prompt after it are one user turn, results first.
      if (last?.role === role) (last.content as ContentBlockParam[]).push(...blocks);
      else messages.push({ role, content: [...blocks] });
    }
    markNewest(messages);
    const mapped = tools.length > 0 ? this.tools.wireOf(tools) : [];
    return {
      ...(system.length > 0 ? { system: system.join("\n\n") } : {}),
      messages,
      ...(mapped.length > 0 ? { tools: mapped } : {}),
    };
  }
}

function messageBlocks(message: ChatMessage): { role: "user" | "assistant"; blocks: readonly ContentBlockParam[] } {
  switch (message.role) {
    case "system":
    case "user":
      return { role: "user", blocks: textBlocks(message.content) };
    case "tool":
      return { role: "user", blocks: [toolResult(message)] };
    case "assistant":
      return { role: "assistant", blocks: assistantBlocks(message) };
  }
}

/** The definitions, a cache breakpoint on the last one. */
function requestTools(tools: readonly ToolDefinition[]): Tool[] {
  const mapped = tools.map(anthropicTool);
  const lastTool = mapped[mapped.length - 1];
  if (lastTool !== undefined) mapped[mapped.length - 1] = { ...lastTool, cache_control: CACHE };
  return mapped;
}

/** Empty text blocks are refused by the API: an empty text is no block at all. */
function textBlocks(text: string): ContentBlockParam[] {
  return text === "" ? [] : [{ type: "text", text }];
}

function toolResult(message: Extract<ChatMessage, { role: "tool" }>): ToolResultBlockParam {
  const failed = message.status !== undefined || message.content === INTERRUPTED_TOOL_RESULT;
  return {
    type: "tool_result",
    tool_use_id: anthropicToolId(message.tool_call_id),
    ...(message.items !== undefined ? { content: message.items.flatMap(resultBlock) } : message.content !== "" ? { content: message.content } : {}),
    ...(failed ? { is_error: true } : {}),
  };
}

/** An item as a block of a `tool_result`'s content (empty text is no block: the API refuses it); a medium the API does not take as its note. */
function resultBlock(item: ToolResultItem): Array<TextBlockParam | ImageBlockParam> {
  if (item.type === "text") return item.text === "" ? [] : [{ type: "text", text: item.text }];
  if (!isToolResultImage(item)) return [{ type: "text", text: mediaNote(item) }];
  return [{ type: "image", source: { type: "base64", media_type: item.mimeType as Base64ImageSource["media_type"], data: item.data } }];
}

function assistantBlocks(message: Extract<ChatMessage, { role: "assistant" }>): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = partsFor(message, "anthropic").map((part) => part.block as unknown as ContentBlockParam);
  blocks.push(...textBlocks(message.content ?? ""));
  if ("tool_calls" in message) {
    for (const call of message.tool_calls) {
      const use: ToolUseBlockParam = { type: "tool_use", id: anthropicToolId(call.id), name: call.function.name, input: inputOf(call.function.arguments) };
      blocks.push(use);
    }
  }
  return blocks;
}

/** `tool_use.input` must be an object: arguments another provider sent as broken JSON go as `{}` (the executor already told the model). */
function inputOf(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A cache breakpoint on the newest message's last block: the whole prefix is written to (and next time read from) the cache. */
function markNewest(messages: MessageParam[]): void {
  const content = messages[messages.length - 1]?.content;
  if (!Array.isArray(content)) return;
  const index = content.length - 1;
  const block = content[index];
  // Thinking blocks take no cache_control; the breakpoint goes on the last block that does.
  if (block === undefined || block.type === "thinking" || block.type === "redacted_thinking") return;
  content[index] = { ...block, cache_control: CACHE } as ContentBlockParam;
}

/** `{ name, description, input_schema }`; `strict: true` only for a strict definition within Anthropic's rules. */
export function anthropicTool(definition: ToolDefinition): Tool {
  const fn = definition.function;
  const strict = fn.strict === true && anthropicStrictProblem(fn.parameters) === undefined;
  return {
    name: fn.name,
    description: fn.description,
    input_schema: fn.parameters as Tool["input_schema"],
    ...(strict ? { strict: true } : {}),
  };
}
