/**
 * The one stderr line each HTTP request leaves: `http: POST tools/call add 200 ok 12ms`: the HTTP
 * method, the JSON-RPC method, the tool name for a call, the HTTP status, the outcome of a request
 * (`ok`, or `error` for an error response, a tool result with `isError`, or a refusal) and the time to
 * the end of the response. A request the client left before any answer has `aborted` for its status. Never a header value (tokens, session ids) or an argument; a method or tool
 * name that is not shaped like one is not repeated either.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export interface RequestRecord {
  httpMethod: string;
  rpcMethod?: string;
  tool?: string;
  outcome?: "ok" | "error";
}

/** `status`: the HTTP status sent, or `"aborted"` when none was. */
export function requestLogLine(record: RequestRecord, status: number | "aborted", ms: number): string {
  const fields = [
    /^[A-Z]{1,16}$/.test(record.httpMethod) ? record.httpMethod : "(unknown method)",
    record.rpcMethod === undefined ? "-" : /^[\w/.$-]{1,64}$/.test(record.rpcMethod) ? record.rpcMethod : "(unreadable method)",
    ...(record.tool === undefined ? [] : [/^[a-zA-Z0-9_-]{1,64}$/.test(record.tool) ? record.tool : "(unreadable tool name)"]),
    String(status),
    record.outcome ?? "-",
    `${Math.round(ms)}ms`,
  ];
  return `http: ${fields.join(" ")}`;
}

/** What a request says about itself: its JSON-RPC method and, for `tools/call`, the tool's name. */
export function describeMessage(record: RequestRecord, message: JSONRPCMessage): void {
  if (!("method" in message)) {
    record.rpcMethod = "response";
    return;
  }
  record.rpcMethod = message.method;
  const name = message.method === "tools/call" ? (message.params as { name?: unknown } | undefined)?.name : undefined;
  if (typeof name === "string") record.tool = name;
}

/** The outcome a response message carries. */
export function responseOutcome(message: JSONRPCMessage): "ok" | "error" | undefined {
  if ("error" in message) return "error";
  if (!("result" in message)) return undefined;
  return (message.result as { isError?: unknown }).isError === true ? "error" : "ok";
}
