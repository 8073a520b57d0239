/**
 * What a picky gateway rejects in a Chat Completions request, one message per problem. Stricter than
 * OpenAI on purpose: fields a response carries (`refusal`, `annotations`, `audio`, `parsed`…) and
 * deprecated ones (`function_call`) must never be echoed back in history, and every tool call must be
 * answered exactly once, in order, before the conversation goes on. A `strict: true` function definition
 * must keep to OpenAI's strict dialect (strict-dialect.ts), as the real API demands, and no function's
 * parameters may hold an array schema without `items` (array-items.ts), strict or not.
 */
import type { ChatRequestBody } from "./wire-shapes.js";
import { missingItemsProblem } from "./array-items.js";
import { strictDialectViolations } from "./strict-dialect.js";

const ALLOWED_KEYS: Record<string, readonly string[]> = {
  system: ["role", "content", "name"],
  developer: ["role", "content", "name"],
  user: ["role", "content", "name"],
  assistant: ["role", "content", "tool_calls", "name"],
  tool: ["role", "content", "tool_call_id"],
};

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Every reason to answer this request body with a 400 (empty: accepted). */
export function findViolations(body: ChatRequestBody): string[] {
  const problems: string[] = [];
  if (typeof body.model !== "string" || body.model === "") problems.push("missing required parameter: 'model'");
  if (body.stream_options !== undefined && body.stream !== true) {
    problems.push("'stream_options' is only allowed when 'stream' is true");
  }
  problems.push(...toolsProblems(body.tools));
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    problems.push("'messages' must be a non-empty array");
    return problems;
  }
  problems.push(...messagesProblems(body.messages));
  return problems;
}

function toolsProblems(tools: unknown): string[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) return ["'tools' must be an array"];
  const problems: string[] = [];
  const seen = new Set<string>();
  tools.forEach((tool: unknown, i) => {
    const fn = isRecord(tool) ? tool.function : undefined;
    if (!isRecord(tool) || tool.type !== "function" || !isRecord(fn)) {
      problems.push(`tools[${i}] must be { type: "function", function: {...} }`);
      return;
    }
    if (typeof fn.name !== "string" || !TOOL_NAME.test(fn.name)) problems.push(`tools[${i}].function.name is invalid`);
    else if (seen.has(fn.name)) problems.push(`tools[${i}]: duplicate function name '${fn.name}'`);
    else seen.add(fn.name);
    if (fn.parameters !== undefined && !isRecord(fn.parameters)) problems.push(`tools[${i}].function.parameters must be an object`);
    if (fn.strict !== undefined && typeof fn.strict !== "boolean") problems.push(`tools[${i}].function.strict must be a boolean`);
    // Like OpenAI: a definition is refused naming its first problem, a missing `items` before the strict dialect's.
    const strictProblem = missingItemsProblem(fn.parameters) ?? (fn.strict === true ? strictDialectViolations(fn.parameters)[0] : undefined);
    if (strictProblem !== undefined) problems.push(`Invalid schema for function '${String(fn.name)}': ${strictProblem}`);
  });
  return problems;
}

function messagesProblems(messages: unknown[]): string[] {
  const problems: string[] = [];
  /** Tool call ids of the last assistant message still waiting for their tool message, in order. */
  let pending: string[] = [];
  const answered = new Set<string>();

  const closePending = (at: string) => {
    if (pending.length > 0) problems.push(`${at}: tool calls not answered: ${pending.join(", ")}`);
    pending = [];
  };

  messages.forEach((message: unknown, i) => {
    const at = `messages[${i}]`;
    if (!isRecord(message) || typeof message.role !== "string" || !(message.role in ALLOWED_KEYS)) {
      problems.push(`${at}: invalid role`);
      return;
    }
    const role = message.role;
    for (const key of Object.keys(message)) {
      if (!ALLOWED_KEYS[role]?.includes(key)) problems.push(`${at}: unknown parameter '${key}' for a ${role} message`);
    }
    if (role !== "tool") closePending(at);

    if (role === "assistant") {
      problems.push(...assistantProblems(message, at));
      if (Array.isArray(message.tool_calls)) {
        pending = message.tool_calls.flatMap((call: unknown) => (isRecord(call) && typeof call.id === "string" ? [call.id] : []));
        const unique = new Set(pending);
        if (unique.size !== pending.length) problems.push(`${at}: duplicate tool call ids`);
      }
      return;
    }
    if (role === "tool") {
      problems.push(...toolMessageProblems(message, at, pending, answered));
      return;
    }
    if (!isContent(message.content)) problems.push(`${at}: 'content' must be a string or an array of text parts`);
  });
  closePending("end of messages");
  return problems;
}

function toolMessageProblems(message: Record<string, unknown>, at: string, pending: string[], answered: Set<string>): string[] {
  const problems: string[] = [];
  if (typeof message.content !== "string" && !isContent(message.content)) problems.push(`${at}: 'content' must be a string`);
  const id = message.tool_call_id;
  if (typeof id !== "string") return [...problems, `${at}: missing 'tool_call_id'`];
  if (pending[0] === id) {
    pending.shift();
    answered.add(id);
  } else if (answered.has(id)) {
    problems.push(`${at}: tool call '${id}' answered twice`);
  } else if (pending.includes(id)) {
    problems.push(`${at}: tool call '${id}' answered out of order (expected '${pending[0]}')`);
    pending.splice(pending.indexOf(id), 1);
    answered.add(id);
  } else {
    problems.push(`${at}: 'tool_call_id' ${id} does not answer any preceding tool call`);
  }
  return problems;
}

function assistantProblems(message: Record<string, unknown>, at: string): string[] {
  const problems: string[] = [];
  const calls = message.tool_calls;
  if (calls !== undefined) {
    if (!Array.isArray(calls) || calls.length === 0) {
      problems.push(`${at}: 'tool_calls' must be a non-empty array when present`);
    } else {
      calls.forEach((call: unknown, j) => problems.push(...toolCallProblems(call, `${at}.tool_calls[${j}]`)));
    }
  }
  const hasCalls = Array.isArray(calls) && calls.length > 0;
  if (message.content === null || message.content === undefined) {
    if (!hasCalls) problems.push(`${at}: an assistant message needs 'content' or 'tool_calls'`);
  } else if (!isContent(message.content)) {
    problems.push(`${at}: 'content' must be a string, an array of text parts, or null`);
  }
  return problems;
}

function toolCallProblems(call: unknown, at: string): string[] {
  if (!isRecord(call)) return [`${at}: must be an object`];
  const problems: string[] = [];
  for (const key of Object.keys(call)) {
    if (!["id", "type", "function"].includes(key)) problems.push(`${at}: unknown parameter '${key}'`);
  }
  if (typeof call.id !== "string" || call.id === "") problems.push(`${at}.id must be a non-empty string`);
  if (call.type !== "function") problems.push(`${at}.type must be 'function'`);
  const fn = call.function;
  if (!isRecord(fn)) return [...problems, `${at}.function must be an object`];
  for (const key of Object.keys(fn)) {
    if (!["name", "arguments"].includes(key)) problems.push(`${at}.function: unknown parameter '${key}'`);
  }
  if (typeof fn.name !== "string" || fn.name === "") problems.push(`${at}.function.name must be a non-empty string`);
  if (typeof fn.arguments !== "string") problems.push(`${at}.function.arguments must be a string`);
  return problems;
}

function isContent(content: unknown): boolean {
  if (typeof content === "string") return true;
  return (
    Array.isArray(content) &&
    content.every((part: unknown) => isRecord(part) && part.type === "text" && typeof part.text === "string" && Object.keys(part).length === 2)
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
