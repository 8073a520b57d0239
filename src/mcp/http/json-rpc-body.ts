/**
 * What a POST body holds, read before the SDK's transport sees it, so each bad body gets its own answer
 * (the transport calls every one a parse error): not JSON → 400 with -32700 (id null); JSON that is
 * not one JSON-RPC 2.0 message, or a batch (the current specification has none) → 400 with -32600,
 * with the message's id when one can be read.
 */
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { readableId } from "../line-framing.js";

export type BodyMessage = { ok: true; message: JSONRPCMessage } | { ok: false; code: number; error: string; id: string | number | null };

export function parseBodyMessage(body: Buffer): BodyMessage {
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch (error) {
    return { ok: false, code: -32700, error: `Parse error: the body is not JSON (${error instanceof Error ? error.message : String(error)}); send one JSON-RPC message.`, id: null };
  }
  if (Array.isArray(value)) return { ok: false, code: -32600, error: "Invalid Request: a batch (JSON array) is not accepted; send one JSON-RPC message per request.", id: null };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    return { ok: false, code: -32600, error: `Invalid Request: not a JSON-RPC 2.0 message (${issue?.message ?? "wrong shape"}${where}).`, id: readableId(value) };
  }
  // The message as sent, not as the schema rebuilt it: the executor reads `arguments` exactly as they came.
  return { ok: true, message: value as JSONRPCMessage };
}
