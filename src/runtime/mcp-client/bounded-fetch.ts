/**
 * The `fetch` an http server's transport (the SDK's `StreamableHTTPClientTransport`) is given, so that
 * one answer longer than `MAX_MESSAGE_BYTES` is skipped as it arrives, as on stdio, never held:
 * - a JSON answer (`application/json`) is held up to the limit, as the SDK would hold it to parse it; one
 *   past it is read to its end without being kept, and the SDK is handed instead the JSON-RPC error
 *   `ANSWER_TOO_LARGE` for the request that was posted, with the answer's size;
 * - a stream (`text/event-stream`) is passed on one event at a time, each held up to the limit; an event
 *   past it is skipped to its end, and that same error for the posted request takes its place. The
 *   events after it pass as before. On the stream a server opens by itself (GET), which answers no
 *   request, an event past the limit is only dropped.
 * So the call the answer was for gets the stdio path's message (its size and the limit) and the server
 * stays usable. Every other response (an error status, a redirect, `202 Accepted`) is returned as it is.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { ANSWER_TOO_LARGE, MAX_MESSAGE_BYTES } from "./process-group-transport.js";

const LF = 10;
const CR = 13;

export function boundedFetch(limit: number = MAX_MESSAGE_BYTES, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    const body = response.body;
    if (!response.ok || response.status === 202 || body === null) return response;
    const type = mediaType(response.headers.get("content-type"));
    const answers = requestIdOf(init?.body);
    if (type === "application/json") return withBody(response, boundedJson(body, limit, answers));
    if (type === "text/event-stream") return withBody(response, boundedEvents(body, limit, answers));
    return response;
  };
}

function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The id of the JSON-RPC request a POST carries (the SDK sends one message as JSON text); undefined for anything else. */
function requestIdOf(body: RequestInit["body"] | undefined): RequestId | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const message: unknown = JSON.parse(body);
    if (typeof message !== "object" || message === null || !("method" in message) || !("id" in message)) return undefined;
    const { id } = message;
    return typeof id === "string" || typeof id === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}

function withBody(response: Response, body: ReadableStream<Uint8Array>): Response {
  const headers = new Headers(response.headers);
  // The body handed on is not the one the length was of.
  headers.delete("content-length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** The answer standing for one of `bytes` that was not read, as the stdio transport makes it. */
function tooLargeAnswer(id: RequestId, bytes: number, limit: number): JSONRPCMessage {
  const message = `its answer is ${bytes} bytes, more than the ${limit} sigloop reads of one message`;
  return { jsonrpc: "2.0", id, error: { code: ANSWER_TOO_LARGE, message, data: { bytes, limit } } };
}

function tooLargeError(bytes: number, limit: number): Error {
  return new Error(`an answer of ${bytes} bytes to no request sigloop could tell was skipped: it is more than the ${limit} sigloop reads of one message`);
}

function boundedJson(body: ReadableStream<Uint8Array>, limit: number, answers: RequestId | undefined): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let held: Uint8Array[] = [];
      let bytes = 0;
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        bytes += read.value.length;
        if (bytes <= limit) held.push(read.value);
        else held = [];
      }
      if (bytes <= limit) for (const piece of held) controller.enqueue(piece);
      else if (answers !== undefined) controller.enqueue(new TextEncoder().encode(JSON.stringify(tooLargeAnswer(answers, bytes, limit))));
      else return controller.error(tooLargeError(bytes, limit));
      controller.close();
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

function boundedEvents(body: ReadableStream<Uint8Array>, limit: number, answers: RequestId | undefined): ReadableStream<Uint8Array> {
  let events: EventSplitter | undefined;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        events = new EventSplitter(limit, (piece) => controller.enqueue(piece), (bytes) => {
          if (answers !== undefined) controller.enqueue(new TextEncoder().encode(`event: message\ndata: ${JSON.stringify(tooLargeAnswer(answers, bytes, limit))}\n\n`));
        });
      },
      transform: (chunk) => events!.push(chunk),
      flush: () => events!.end(),
    }),
  );
}

/**
 * Server-sent events cut where each ends (an empty line: `\n`, `\r\n` or `\r` twice). An event's
 * pieces are kept until its end and then passed on; one that passes `limit` is dropped as it arrives,
 * and only its size is said at its end.
 */
class EventSplitter {
  #pieces: Uint8Array[] = [];
  #size = 0;
  #skipping = false;
  #lineHasBytes = false;
  #afterCR = false;
  /** The last byte was a CR ending an event, which the next byte's being an LF or not decides the end of. */
  #endsAfterCR = false;

  constructor(
    private readonly limit: number,
    private readonly pass: (piece: Uint8Array) => void,
    private readonly skipped: (bytes: number) => void,
  ) {}

  push(chunk: Uint8Array): void {
    let from = 0;
    for (let at = 0; at < chunk.length; at++) {
      const byte = chunk[at]!;
      if (this.#endsAfterCR) {
        // An event ended by a CR: the LF of a CRLF there is still its own.
        this.#endsAfterCR = false;
        this.#afterCR = false;
        const end = byte === LF ? at + 1 : at;
        this.#take(chunk.subarray(from, end));
        this.#endEvent();
        from = end;
        if (byte === LF) continue;
      }
      const afterCR = this.#afterCR;
      this.#afterCR = byte === CR;
      // The LF of a CRLF ends no second line.
      if (byte === LF && afterCR) continue;
      if (byte !== LF && byte !== CR) {
        this.#lineHasBytes = true;
        continue;
      }
      if (this.#lineHasBytes) {
        this.#lineHasBytes = false;
        continue;
      }
      if (byte === CR) {
        this.#endsAfterCR = true;
        continue;
      }
      this.#take(chunk.subarray(from, at + 1));
      this.#endEvent();
      from = at + 1;
    }
    if (from < chunk.length) this.#take(chunk.subarray(from));
  }

  /** The stream ended: what is left of an event goes on as it is, for the SDK's parser to judge. */
  end(): void {
    this.#endsAfterCR = false;
    this.#endEvent();
  }

  #take(piece: Uint8Array): void {
    this.#size += piece.length;
    if (this.#skipping) return;
    if (this.#size <= this.limit) {
      this.#pieces.push(piece);
      return;
    }
    this.#skipping = true;
    this.#pieces = [];
  }

  #endEvent(): void {
    if (this.#skipping) this.skipped(this.#size);
    else for (const piece of this.#pieces) this.pass(piece);
    this.#pieces = [];
    this.#size = 0;
    this.#skipping = false;
  }
}
