/**
 * The MCP stdio transport, framed defensively: one JSON-RPC message per line, and every bad line is
 * answered instead of only reported. A line that is not JSON gets a parse error (id null); JSON that is
 * not a JSON-RPC message gets an invalid-request error (with its id when one can be read); a request
 * whose id is still in flight gets an invalid-request error with that id (ids-in-flight.ts); a line
 * longer than `maxLineBytes` is dropped as it streams in (never buffered whole) with an invalid-request
 * error; blank lines are ignored. The SDK's stock stdio transport only passes such lines to `onerror`, so
 * a client waiting on its request would wait forever, and it closes itself on an oversized line. Every
 * id is answered as it was written (id-literals.ts); a response whose id the server cannot have used
 * (one kept as written) is reported to `onerror` with that id, as the SDK reports an unknown one.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { readJsonRpcMessage } from "./json-rpc-shape.js";
import { isIdLiteral, readableId, serializeMessage, withIdLiterals, type WireId } from "./id-literals.js";
import { idInUse, IdsInFlight } from "./ids-in-flight.js";
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
  const inFlight = new IdsInFlight();

  const transport: Transport = {
    async start() {
      input.on("data", onData);
      input.on("end", onEnd);
      input.on("error", onError);
    },
    async send(message) {
      if (closed) return;
      inFlight.sent(message);
      await write(`${serializeMessage(message)}\n`);
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

  function answerError(id: WireId | null, code: number, message: string): void {
    transport.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage).catch((error: unknown) => transport.onerror?.(asError(error)));
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
    const prepared = withIdLiterals(line, value);
    const read = readJsonRpcMessage(prepared);
    if (!read.ok) {
      answerError(readableId(line, prepared), ErrorCode.InvalidRequest, read.problem);
      return;
    }
    const { message } = read;
    if (!("method" in message) && isIdLiteral(message.id)) {
      // The server's own requests have small integer ids, so this answers none of them; the SDK would
      // report it with the marker, its random prefix included, where the id was.
      transport.onerror?.(new Error(`Received a response for an unknown message ID: ${serializeMessage(message)}`));
      return;
    }
    const inUse = inFlight.arrived(message);
    if (inUse !== undefined) {
      answerError(inUse, ErrorCode.InvalidRequest, idInUse(inUse));
      return;
    }
    transport.onmessage?.(message);
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

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
