/**
 * Why a JSON value is not one JSON-RPC 2.0 message as MCP sends it, in words a client's developer can act
 * on, for both transports' -32600 answers: the SDK's schema says only "Invalid input" or calls a
 * mistyped `id` an unrecognised key. The common mistakes are named here; whatever else the schema
 * refuses keeps the schema's own words.
 */
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The message as the SDK's schema reads it, or `Invalid Request: not a JSON-RPC 2.0 message (…)`. */
export function readJsonRpcMessage(value: unknown): { ok: true; message: JSONRPCMessage } | { ok: false; problem: string } {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { ok: true, message: parsed.data };
  return { ok: false, problem: `Invalid Request: not a JSON-RPC 2.0 message (${commonMistake(value) ?? schemaWords(parsed.error.issues[0])}).` };
}

function commonMistake(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "a message is a JSON object";
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") return `"jsonrpc" must be "2.0"`;
  if ("id" in message && !(typeof message.id === "string" || Number.isInteger(message.id))) return `"id" must be a string or an integer (MCP allows no null id)`;
  if ("method" in message && typeof message.method !== "string") return `"method" must be a string`;
  if ("params" in message && (typeof message.params !== "object" || message.params === null || Array.isArray(message.params))) {
    return `"params" must be an object: MCP passes parameters by name`;
  }
  if (!("method" in message) && !("result" in message) && !("error" in message)) return `it has no "method" (a request or notification), "result" or "error" (a response)`;
  return undefined;
}

function schemaWords(issue: { message: string; path: PropertyKey[] } | undefined): string {
  if (issue === undefined) return "wrong shape";
  return `${issue.message}${issue.path.length > 0 ? ` at ${issue.path.map(String).join(".")}` : ""}`;
}
