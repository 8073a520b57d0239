/**
 * The MCP stdio transport, framed defensively: one JSON-RPC message per line, and every bad line is
 * answered instead of only reported. A line that is not JSON gets a parse error (id null); JSON that is
 * not a JSON-RPC message gets an invalid-request error (with its id when one can be read); a line longer
 * than `maxLineBytes` is dropped as it streams in (never buffered whole) with an invalid-request error;
 * blank lines are ignored. The SDK's stock stdio transport only passes such lines to `onerror`, so a
 * client waiting on its request would wait forever, and it closes itself on an oversized line.
 */
import { randomUUID } from "node:crypto";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { readJsonRpcMessage } from "./json-rpc-shape.js";
import { jsonParseMessage } from "../shared/json-parse-message.js";

/** The longest line accepted: 8 MiB, room for large tool arguments, small enough to bound memory. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

export interface LineFramingOptions {
  input: NodeJS.ReadableStream;
  /** Writes protocol text to the real stdout; resolves once the stream has taken it. */
  write: (text: string) => Promise<void>;
  maxLineBytes?: number;
}

export function createLineFraming(options: LineFramingOptions): Transport {
  const { input, write, maxLineBytes = MAX_LINE_BYTES } = options;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Inside an oversized line, already answered: its remaining bytes are skipped up to the newline. */
  let dropping = false;
  let closed = false;
  // JSON-RPC ids go back exactly as they came, and -0 is not 0; the SDK would key and answer it as 0.
  const negativeZero = `-0 ${randomUUID()}`;

  const transport: Transport = {
    async start() {
      input.on("data", onData);
      input.on("end", onEnd);
      input.on("error", onError);
    },
    async send(message) {
      if (closed) return;
      await write(`${serialize(message, negativeZero)}\n`);
    },
    async close() {
      if (closed) return;
      closed = true;
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("error", onError);
      pending = [];
      transport.onclose?.();
    },
  };

  function answerError(id: string | number | null, code: number, message: string): void {
    transport.send({ jsonrpc: "2.0", id: Object.is(id, -0) ? negativeZero : id, error: { code, message } } as unknown as JSONRPCMessage).catch((error: unknown) => transport.onerror?.(asError(error)));
  }

  function onData(chunk: Buffer | string): void {
    let rest = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    while (!closed && rest.length > 0) {
      const newline = rest.indexOf(0x0a);
      const part = newline === -1 ? rest : rest.subarray(0, newline);
      if (!dropping && pendingBytes + part.length > maxLineBytes) {
        dropping = true;
        pending = [];
        pendingBytes = 0;
        answerError(null, ErrorCode.InvalidRequest, `Invalid Request: a message longer than ${maxLineBytes} bytes was dropped unread; send messages of at most ${maxLineBytes} bytes, one per line.`);
      }
      if (!dropping) {
        pending.push(part);
        pendingBytes += part.length;
      }
      if (newline === -1) return;
      rest = rest.subarray(newline + 1);
      if (dropping) {
        dropping = false;
        continue;
      }
      const line = Buffer.concat(pending).toString("utf8");
      pending = [];
      pendingBytes = 0;
      onLine(line);
    }
  }

  function onLine(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      answerError(null, ErrorCode.ParseError, `Parse error: the line is not JSON (${jsonParseMessage(error)}); send one JSON-RPC message per line.`);
      return;
    }
    const read = readJsonRpcMessage(value);
    if (!read.ok) {
      answerError(readableId(value), ErrorCode.InvalidRequest, read.problem);
      return;
    }
    transport.onmessage?.(withNegativeZeroIds(read.message, negativeZero));
  }

  function onEnd(): void {
    void transport.close();
  }

  function onError(error: Error): void {
    transport.onerror?.(error);
    void transport.close();
  }

  return transport;
}

/** The message with an `id` (or a cancellation's `requestId`) of -0 replaced by `marker`. */
function withNegativeZeroIds(message: JSONRPCMessage, marker: string): JSONRPCMessage {
  const record = message as { id?: unknown; params?: { requestId?: unknown } };
  if (Object.is(record.id, -0)) return { ...message, id: marker } as JSONRPCMessage;
  if (Object.is(record.params?.requestId, -0)) return { ...message, params: { ...record.params, requestId: marker } } as JSONRPCMessage;
  return message;
}

/** The message as one JSON text, `marker` written back as the id -0 it stood for. */
function serialize(message: JSONRPCMessage, marker: string): string {
  const { id, ...rest } = message as { id?: unknown };
  if (id !== marker) return JSON.stringify(message);
  const body = JSON.stringify(rest);
  return body === "{}" ? '{"id":-0}' : `{"id":-0,${body.slice(1)}`;
}

/** The id of a message that failed validation, when it has a usable one (the error answer carries it). */
export function readableId(value: unknown): string | number | null {
  if (typeof value !== "object" || value === null || !("id" in value)) return null;
  const { id } = value as { id: unknown };
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
