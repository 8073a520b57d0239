/**
 * The `fetch` an http server's transport (the SDK's `StreamableHTTPClientTransport`) is given, so that
 * one answer longer than `MAX_MESSAGE_BYTES` is skipped as it arrives, as on stdio, never held:
 * - a JSON answer (`application/json`) is held up to the limit, as the SDK would hold it to parse it; one
 *   past it is read to its end without being kept, and the SDK is handed instead the JSON-RPC error
 *   `ANSWER_TOO_LARGE` for the request that was posted, with the answer's size;
 * - a stream (`text/event-stream`) is passed on one event at a time, each held up to the limit; an event
 *   past it is skipped to its end, and the same error takes its place, for the request its message names
 *   (its id at the message's start or end, where the SDKs write it, as on stdio), else for the posted
 *   one, and with the event's own `id:` so that a resumed stream (`Last-Event-ID`) starts after it. An
 *   event that answers no call is only dropped: one whose message is a notification or a request of the
 *   server's (it begins with `"method"`), one of a type other than `message`, and, on the stream a server
 *   opens by itself (GET), one whose message names no id. The events after it pass as before.
 * So the call the answer was for gets the stdio path's message (its size and the limit), a call whose
 * stream carries a huge log line still gets its result, and the server stays usable. Every other
 * response (an error status, a redirect, `202 Accepted`) is returned as it is.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { ANSWER_TOO_LARGE, ID_WINDOW, idAtEnd, idAtStart, lastBytes, MAX_MESSAGE_BYTES } from "./process-group-transport.js";

const LF = 10;
const CR = 13;
/** How much of a skipped event's start is kept: its fields before `data` (an `id:` of a resumable server's), and the message's start. */
const EVENT_START_WINDOW = 1024;

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

function boundedEvents(body: ReadableStream<Uint8Array>, limit: number, posted: RequestId | undefined): ReadableStream<Uint8Array> {
  let events: EventSplitter | undefined;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        events = new EventSplitter(limit, (piece) => controller.enqueue(piece), (skipped) => {
          const answer = skippedAnswer(skipped, posted);
          if (answer === undefined) return;
          const eventId = answer.eventId !== undefined ? `id: ${answer.eventId}\n` : "";
          controller.enqueue(new TextEncoder().encode(`${eventId}event: message\ndata: ${JSON.stringify(tooLargeAnswer(answer.id, skipped.bytes, limit))}\n\n`));
        });
      },
      transform: (chunk) => events!.push(chunk),
      flush: () => events!.end(),
    }),
  );
}

/** What is kept of an event past the limit: its size, and its first and last bytes. */
interface SkippedEvent {
  bytes: number;
  start: Buffer;
  end: Buffer;
}

/** `{"method":` or `{"jsonrpc":"2.0","method":`: a notification or a request, as the SDKs write them. */
const METHOD_AT_START = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"method"\s*:/;

/**
 * The request a skipped event answers (the id its message names, else the posted request's) and the
 * event's own id; undefined for an event that answers none: a notification or request of the server's,
 * an event of a type the SDK ignores, or one naming no id on a stream that answers no posted request.
 */
function skippedAnswer({ start, end }: SkippedEvent, posted: RequestId | undefined): { id: RequestId; eventId?: string } | undefined {
  const fields = leadingFields(start.toString("utf8"));
  // An empty type is the default one, as the SDK reads it.
  if (fields.event !== undefined && fields.event !== "" && fields.event !== "message") return undefined;
  if (fields.data !== undefined && METHOD_AT_START.test(fields.data)) return undefined;
  const id = (fields.data !== undefined ? idAtStart(fields.data) : undefined) ?? idAtEnd(end.toString("utf8")) ?? posted;
  if (id === undefined) return undefined;
  return { id, ...(fields.id !== undefined ? { eventId: fields.id } : {}) };
}

/**
 * The fields of an event's start up to its first `data` line, as the event-stream format reads them (`name:
 * value`, one space after the colon dropped): `data` is that line's value, cut where the start was.
 */
function leadingFields(start: string): { event?: string; id?: string; data?: string } {
  const lines = start.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  const fields: { event?: string; id?: string; data?: string } = {};
  for (const [index, line] of lines.entries()) {
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (name === "data") return { ...fields, data: value };
    // The last line may have been cut by the window: only whole lines give a field.
    if (index === lines.length - 1) break;
    if (name === "event") fields.event = value;
    else if (name === "id" && !value.includes("\0")) fields.id = value;
  }
  return fields;
}

/**
 * Server-sent events cut where each ends (an empty line: `\n`, `\r\n` or `\r` twice). An event's
 * pieces are kept until its end and then passed on; one that passes `limit` is dropped as it arrives,
 * and only its size and its first and last bytes are said at its end.
 */
class EventSplitter {
  #pieces: Uint8Array[] = [];
  #size = 0;
  #skipping = false;
  /** Once skipping: the event's first bytes (up to `EVENT_START_WINDOW`) and its last `ID_WINDOW`. */
  #start: Buffer = Buffer.alloc(0);
  #end: Buffer = Buffer.alloc(0);
  #lineHasBytes = false;
  #afterCR = false;
  /** The last byte was a CR ending an event, which the next byte's being an LF or not decides the end of. */
  #endsAfterCR = false;

  constructor(
    private readonly limit: number,
    private readonly pass: (piece: Uint8Array) => void,
    private readonly skipped: (event: SkippedEvent) => void,
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
    if (this.#skipping) {
      this.#end = lastBytes([this.#end, piece]);
      return;
    }
    if (this.#size <= this.limit) {
      this.#pieces.push(piece);
      return;
    }
    this.#skipping = true;
    // The pieces held so far are the event's start; copies, so that no chunk is kept alive by them.
    this.#start = firstBytes(this.#pieces, piece, EVENT_START_WINDOW);
    this.#end = lastBytes([...lastPieces(this.#pieces, ID_WINDOW), piece]);
    this.#pieces = [];
  }

  #endEvent(): void {
    if (this.#skipping) this.skipped({ bytes: this.#size, start: this.#start, end: this.#end });
    else for (const piece of this.#pieces) this.pass(piece);
    this.#pieces = [];
    this.#size = 0;
    this.#skipping = false;
    this.#start = Buffer.alloc(0);
    this.#end = Buffer.alloc(0);
  }
}

/** A copy of the first `bytes` bytes of `pieces` followed by `last`. */
function firstBytes(pieces: readonly Uint8Array[], last: Uint8Array, bytes: number): Buffer {
  const kept: Uint8Array[] = [];
  let held = 0;
  for (let index = 0; index <= pieces.length && held < bytes; index++) {
    const piece = (index < pieces.length ? pieces[index]! : last).subarray(0, bytes - held);
    kept.push(piece);
    held += piece.length;
  }
  return Buffer.concat(kept);
}

/** The last pieces of `pieces` that hold at least `bytes` bytes together (all of them when they hold fewer). */
function lastPieces(pieces: readonly Uint8Array[], bytes: number): Uint8Array[] {
  let from = pieces.length;
  for (let held = 0; from > 0 && held < bytes; from--) held += pieces[from - 1]!.length;
  return pieces.slice(from);
}
