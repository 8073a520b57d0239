/**
 * What the scripted server refuses in an Anthropic Messages request, one message per problem, at least
 * as strictly as the real API: unknown fields anywhere; `max_tokens` missing; roles not alternating or
 * not starting with `user`; empty text blocks; a `tool_use` not answered in the very next user message,
 * with its results first and (stricter on purpose) in call order; a `tool_result` answering nothing;
 * tool ids outside `^[a-zA-Z0-9_-]+$`; more than four cache breakpoints; a thinking budget below 1024 or
 * not below `max_tokens`; and a thinking block altered (its signature no longer matches) or missing
 * before the tool results of a turn that had one (the server remembers what it issued); a `tool_result`
 * content block that is not a non-empty text or a base64 image whose bytes are the type it claims.
 */
import { createHmac } from "node:crypto";
import { imageDataProblem } from "./image-data.js";

const BODY_KEYS = ["model", "max_tokens", "messages", "system", "tools", "tool_choice", "stream", "thinking", "metadata", "stop_sequences", "temperature", "top_p", "top_k", "service_tier"];

const BLOCK_KEYS: Record<string, readonly string[]> = {
  text: ["type", "text", "cache_control", "citations"],
  tool_use: ["type", "id", "name", "input", "cache_control"],
  tool_result: ["type", "tool_use_id", "content", "is_error", "cache_control"],
  thinking: ["type", "thinking", "signature"],
  redacted_thinking: ["type", "data"],
  server_tool_use: ["type", "id", "name", "input", "cache_control"],
  web_search_tool_result: ["type", "tool_use_id", "content", "cache_control"],
};

const TOOL_KEYS = ["name", "description", "input_schema", "cache_control", "strict", "type"];
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;
const MAX_CACHE_BREAKPOINTS = 4;

/** What the server issued: signs thinking, and remembers which tool_use ids came with which thinking blocks. */
export class ThinkingLedger {
  private readonly secret = `scripted-${Math.random()}`;
  private readonly byToolUse = new Map<string, string>();

  sign(thinking: string): string {
    return createHmac("sha256", this.secret).update(thinking).digest("base64");
  }

  /** The server sent `thinking` (blocks, JSON) in a turn with these tool_use ids. */
  issued(toolUseIds: readonly string[], thinking: string): void {
    for (const id of toolUseIds) this.byToolUse.set(id, thinking);
  }

  expectedFor(toolUseId: string): string | undefined {
    return this.byToolUse.get(toolUseId);
  }
}

export function anthropicViolations(body: Record<string, unknown>, ledger: ThinkingLedger): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(body)) if (!BODY_KEYS.includes(key)) problems.push(`${key}: Extra inputs are not permitted`);
  if (typeof body.model !== "string" || body.model === "") problems.push("model: Field required");
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) problems.push("max_tokens: Field required (a positive integer)");
  problems.push(...thinkingProblems(body.thinking, body.max_tokens));
  let breakpoints = 0;
  const countCache = (value: Record<string, unknown>) => {
    if (value.cache_control !== undefined) breakpoints += 1;
  };
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) problems.push("tools: Input should be a valid list");
    else
      body.tools.forEach((tool: unknown, i) => {
        if (!isRecord(tool)) return void problems.push(`tools.${i}: Input should be an object`);
        countCache(tool);
        for (const key of Object.keys(tool)) if (!TOOL_KEYS.includes(key)) problems.push(`tools.${i}.${key}: Extra inputs are not permitted`);
        if (typeof tool.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) problems.push(`tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
        if (!isRecord(tool.input_schema) || tool.input_schema.type !== "object") problems.push(`tools.${i}.input_schema: Input should be an object schema of type 'object'`);
      });
  }
  if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system)) problems.push("system: Input should be a string or a list of text blocks");
  if (body.system === "") problems.push("system: text content blocks must be non-empty");
  if (!Array.isArray(body.messages) || body.messages.length === 0) return [...problems, "messages: at least one message is required"];
  problems.push(...messagesProblems(body.messages, ledger, (block) => countCache(block)));
  if (breakpoints > MAX_CACHE_BREAKPOINTS) problems.push(`A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`);
  return problems;
}

function thinkingProblems(thinking: unknown, maxTokens: unknown): string[] {
  if (thinking === undefined) return [];
  if (!isRecord(thinking)) return ["thinking: Input should be an object"];
  if (thinking.type === "disabled") return [];
  if (thinking.type !== "enabled") return ["thinking.type: Input should be 'enabled' or 'disabled'"];
  const budget = thinking.budget_tokens;
  if (typeof budget !== "number" || budget < 1024) return ["thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"];
  if (typeof maxTokens === "number" && budget >= maxTokens) return ["`max_tokens` must be greater than `thinking.budget_tokens`"];
  return [];
}

function messagesProblems(messages: unknown[], ledger: ThinkingLedger, countCache: (block: Record<string, unknown>) => void): string[] {
  const problems: string[] = [];
  /** The tool_use ids of the previous assistant message, which the next user message must answer first, in order. */
  let owed: string[] = [];
  let previousRole: unknown;
  messages.forEach((message: unknown, i) => {
    const at = `messages.${i}`;
    if (!isRecord(message)) return void problems.push(`${at}: Input should be an object`);
    for (const key of Object.keys(message)) if (key !== "role" && key !== "content") problems.push(`${at}.${key}: Extra inputs are not permitted`);
    const role = message.role;
    if (role !== "user" && role !== "assistant") return void problems.push(`${at}.role: Input should be 'user' or 'assistant'`);
    if (i === 0 && role !== "user") problems.push(`${at}: the first message must use the "user" role`);
    if (role === previousRole) problems.push(`${at}: roles must alternate between "user" and "assistant"`);
    previousRole = role;
    const blocks = blocksOf(message.content, at, problems);
    blocks.forEach(({ block, at: blockAt }) => {
      countCache(block);
      problems.push(...blockProblems(block, blockAt, role));
    });
    if (role === "user") {
      const results = blocks.map(({ block }) => block).filter((block) => block.type === "tool_result");
      const leading = blocks.findIndex(({ block }) => block.type !== "tool_result");
      if (leading !== -1 && blocks.slice(leading).some(({ block }) => block.type === "tool_result")) problems.push(`${at}: tool_result blocks must come first in the user message`);
      const ids = results.map((block) => String(block.tool_use_id));
      if (owed.length > 0) {
        const missing = owed.filter((id) => !ids.includes(id));
        if (missing.length > 0) problems.push(`${at}: tool_use ids were found without tool_result blocks immediately after: ${missing.join(", ")}. Each tool_use block must have a corresponding tool_result block in the next message.`);
        else if (ids.slice(0, owed.length).join() !== owed.join()) problems.push(`${at}: tool_result blocks must answer the tool_use blocks in call order (${owed.join(", ")})`);
      }
      for (const id of ids) if (!owed.includes(id)) problems.push(`${at}: unexpected tool_use_id found in tool_result blocks: ${id}. Each tool_result block must have a corresponding tool_use block in the previous message.`);
      owed = [];
    } else {
      if (owed.length > 0) problems.push(`${at}: tool_use ids were found without tool_result blocks immediately after: ${owed.join(", ")}`);
      const uses = blocks.map(({ block }) => block).filter((block) => block.type === "tool_use");
      owed = uses.map((block) => String(block.id));
      if (new Set(owed).size !== owed.length) problems.push(`${at}: tool_use ids must be unique`);
      problems.push(...thinkingKept(blocks.map(({ block }) => block), owed, ledger, at));
    }
  });
  // The last assistant message may be a prefill (or paused content) to continue; its tool_use blocks would still be owed.
  if (owed.length > 0) problems.push(`messages: tool_use ids were found without tool_result blocks immediately after: ${owed.join(", ")}`);
  return problems;
}

function blocksOf(content: unknown, at: string, problems: string[]): Array<{ block: Record<string, unknown>; at: string }> {
  if (typeof content === "string") {
    if (content === "") problems.push(`${at}: text content blocks must be non-empty`);
    return [];
  }
  if (!Array.isArray(content)) {
    problems.push(`${at}.content: Input should be a string or a list of content blocks`);
    return [];
  }
  if (content.length === 0) problems.push(`${at}: all messages must have non-empty content except for the optional final assistant message`);
  return content.flatMap((block: unknown, j) => {
    const blockAt = `${at}.content.${j}`;
    if (!isRecord(block)) {
      problems.push(`${blockAt}: Input should be an object`);
      return [];
    }
    return [{ block, at: blockAt }];
  });
}

function blockProblems(block: Record<string, unknown>, at: string, role: "user" | "assistant"): string[] {
  const type = typeof block.type === "string" ? block.type : "";
  const keys = BLOCK_KEYS[type];
  if (keys === undefined) return [`${at}.type: unknown content block type ${JSON.stringify(block.type)}`];
  const problems = Object.keys(block).filter((key) => !keys.includes(key)).map((key) => `${at}.${type}.${key}: Extra inputs are not permitted`);
  const userOnly = type === "tool_result";
  const assistantOnly = type === "tool_use" || type === "thinking" || type === "redacted_thinking";
  if ((userOnly && role !== "user") || (assistantOnly && role !== "assistant")) problems.push(`${at}: a ${type} block cannot be in a ${role} message`);
  if (type === "text" && (typeof block.text !== "string" || block.text === "")) problems.push(`${at}: text content blocks must be non-empty`);
  if (type === "tool_use") {
    if (typeof block.id !== "string" || !TOOL_ID.test(block.id)) problems.push(`${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
    if (typeof block.name !== "string" || block.name === "") problems.push(`${at}.tool_use.name: a non-empty string is required`);
    if (!isRecord(block.input)) problems.push(`${at}.tool_use.input: Input should be a valid dictionary`);
  }
  if (type === "tool_result") {
    if (typeof block.tool_use_id !== "string" || !TOOL_ID.test(block.tool_use_id)) problems.push(`${at}.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
    if (block.content !== undefined && typeof block.content !== "string" && !Array.isArray(block.content)) problems.push(`${at}.tool_result.content: Input should be a string or a list`);
    if (block.content === "") problems.push(`${at}.tool_result.content: text content blocks must be non-empty`);
    if (Array.isArray(block.content)) block.content.forEach((part: unknown, k) => problems.push(...resultBlockProblems(part, `${at}.tool_result.content.${k}`)));
    if (block.is_error !== undefined && typeof block.is_error !== "boolean") problems.push(`${at}.tool_result.is_error: Input should be a boolean`);
  }
  if (type === "thinking" && (typeof block.thinking !== "string" || typeof block.signature !== "string")) problems.push(`${at}.thinking: thinking and signature must be strings`);
  return problems;
}

/**
 * A block of a `tool_result`'s content: a non-empty text, or an image as base64 of one of the four types
 * whose bytes are that type (the API's own checks; it would also take documents and search results,
 * which the runtime never sends).
 */
function resultBlockProblems(part: unknown, at: string): string[] {
  if (!isRecord(part)) return [`${at}: Input should be a valid dictionary`];
  if (part.type === "text") {
    const extra = Object.keys(part).filter((key) => !BLOCK_KEYS.text!.includes(key)).map((key) => `${at}.text.${key}: Extra inputs are not permitted`);
    return typeof part.text === "string" && part.text !== "" ? extra : [...extra, `${at}: text content blocks must be non-empty`];
  }
  if (part.type !== "image") return [`${at}.type: Input tag ${JSON.stringify(part.type)} found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document'`];
  const problems = Object.keys(part).filter((key) => key !== "type" && key !== "source" && key !== "cache_control").map((key) => `${at}.image.${key}: Extra inputs are not permitted`);
  const source = part.source;
  if (!isRecord(source) || source.type !== "base64") return [...problems, `${at}.image.source: the runtime sends images as { type: "base64", media_type, data }`];
  problems.push(...Object.keys(source).filter((key) => !["type", "media_type", "data"].includes(key)).map((key) => `${at}.image.source.base64.${key}: Extra inputs are not permitted`));
  const problem = imageDataProblem(String(source.media_type), source.data);
  if (problem !== undefined) problems.push(`${at}.image.source.base64: ${problem}`);
  return problems;
}

/** A turn that came with thinking must bring it back, unaltered, before its tool results are accepted. */
function thinkingKept(blocks: readonly Record<string, unknown>[], toolUseIds: readonly string[], ledger: ThinkingLedger, at: string): string[] {
  const problems: string[] = [];
  for (const block of blocks) {
    if (block.type === "thinking" && typeof block.thinking === "string" && block.signature !== ledger.sign(block.thinking)) {
      problems.push(`${at}: Invalid \`signature\` in \`thinking\` block (thinking blocks cannot be modified)`);
    }
  }
  const sent = JSON.stringify(blocks.filter((block) => block.type === "thinking" || block.type === "redacted_thinking"));
  for (const id of toolUseIds) {
    const expected = ledger.expectedFor(id);
    if (expected !== undefined && expected !== sent) {
      problems.push(`${at}: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (the thinking blocks of this turn are missing or altered)`);
      break;
    }
  }
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
