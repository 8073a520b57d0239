/**
 * The answers the HTTP server gives itself, before a request reaches the SDK's transport: a JSON-RPC
 * error body (as the transport writes its own) with an HTTP status and any extra headers; its id as the
 * client wrote it (id-literals.ts).
 */
import type { ServerResponse } from "node:http";
import { writeIdLiterals, type WireId } from "../id-literals.js";

export function answerError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}, id: WireId | null = null): void {
  const body = writeIdLiterals(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }));
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function answerText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function answerJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
  res.end(body);
}
