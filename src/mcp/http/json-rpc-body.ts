/**
 * What a POST body holds, read before the SDK's transport sees it, so each bad body gets its own answer
 * (the transport calls every one a parse error): not JSON → 400 with -32700 (id null); JSON that is
 * not one JSON-RPC 2.0 message, or a batch (the current specification has none) → 400 with -32600,
 * with the message's id when one can be read. Ids are kept as written (id-literals.ts).
 */
import { JSONRPCMessageSchema, RELATED_TASK_META_KEY, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { readableId, withIdLiterals, type WireId } from "../id-literals.js";
import { readJsonRpcMessage } from "../json-rpc-shape.js";

export type BodyMessage = { ok: true; message: JSONRPCMessage } | { ok: false; code: number; error: string; id: WireId | null };

export function parseBodyMessage(body: Buffer): BodyMessage {
  const text = body.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, code: -32700, error: `Parse error: the body is not JSON (${error instanceof Error ? error.message : String(error)}); send one JSON-RPC message.`, id: null };
  }
  if (Array.isArray(value)) return { ok: false, code: -32600, error: "Invalid Request: a batch (JSON array) is not accepted; send one JSON-RPC message per request.", id: null };
  const prepared = withIdLiterals(text, value);
  if (plainCall(prepared)) return { ok: true, message: prepared as JSONRPCMessage };
  const read = readJsonRpcMessage(prepared);
  if (!read.ok) return { ok: false, code: -32600, error: read.problem, id: readableId(text, prepared) };
  // The message as sent, not as the schema rebuilt it: the executor reads `arguments` exactly as they came.
  return { ok: true, message: prepared as JSONRPCMessage };
}

/**
 * A request or notification in the shape nearly every message has, recognised without the schema (the
 * SDK's transport parses each message with it again): exactly `jsonrpc: "2.0"`, a string `method`, an
 * integer or string `id` when present, `params` an object when present, its `_meta` holding at most a
 * progress token of the right type. Whatever this does not recognise goes through the schema, so it
 * accepts nothing the schema refuses.
 */
function plainCall(message: unknown): boolean {
  if (!isPlainObject(message)) return false;
  let keys = 0;
  for (const key in message) {
    if (!Object.hasOwn(message, key)) return false;
    if (key !== "jsonrpc" && key !== "method" && key !== "id" && key !== "params") return false;
    keys += 1;
  }
  if (message.jsonrpc !== "2.0" || typeof message.method !== "string") return false;
  const id = message.id;
  if (id !== undefined && typeof id !== "string" && !Number.isSafeInteger(id)) return false;
  const params = message.params;
  if (params !== undefined && (!isPlainObject(params) || !plainMeta(params._meta))) return false;
  return keys === 2 + (id === undefined ? 0 : 1) + (params === undefined ? 0 : 1);
}

/** Absent, or an object whose only known member is a progress token of the right type. */
function plainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isPlainObject(meta) || Object.hasOwn(meta, RELATED_TASK_META_KEY)) return false;
  const token = meta.progressToken;
  return token === undefined || typeof token === "string" || Number.isSafeInteger(token);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
