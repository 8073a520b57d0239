/**
 * The `fetch` an http server's transport (the SDK's `StreamableHTTPClientTransport`) is given, so that
 * one answer longer than `MAX_MESSAGE_BYTES` is skipped as it arrives, as on stdio, never held, and so
 * that a call stopped before its answer ends (its time limit, an abort) stops being read:
 * - a JSON answer (`application/json`) is held up to the limit, as the SDK would hold it to parse it; one
 *   past it is read to its end without being kept, and the SDK is handed instead the JSON-RPC error
 *   `ANSWER_TOO_LARGE` for the request that was posted, with the answer's size;
 * - a stream (`text/event-stream`) is passed on one event at a time, each held up to the limit; an event
 *   past it is skipped to its end, and the same error takes its place, for the request its message names
 *   (its id at the message's start or end, where the SDKs write it, as on stdio), else for the posted
 *   one, and with the event's own `id:` so that a resumed stream (`Last-Event-ID`) starts after it. An
 *   event that answers no call is only dropped: one with no `data` line (comments and fields alone, which
 *   the SDK skips), one whose message is a notification or a request of the server's (it begins with
 *   `"method"`), one of a type other than `message`, and, on the stream a server opens by itself (GET),
 *   one whose message names no id. The events after it pass as before.
 * So the call the answer was for gets the stdio path's message (its size and the limit), a call whose
 * stream carries a huge log line still gets its result, and the server stays usable.
 *
 * A posted request's stream ends with the event that answers it (a result or an error with its id, as
 * the SDK's schemas read it, the size error standing for one too): nothing after it is handed on, and
 * the request is aborted, so a server that keeps the stream open (keep-alives) holds no connection per
 * call. An error on a stream whose events had ids is the exception: the stream handed on stays open and
 * silent, as the SDK would open such a stream again (a GET with `Last-Event-ID`) when it ends without a
 * result. An error status's body (4xx, 5xx, a redirect's), which the SDK reads whole into its error
 * message, is kept up to `ERROR_BODY_BYTES` and then cut (`ERROR_BODY_CUT` after it, the rest cancelled
 * and its connection closed). `202 Accepted` and other media types are returned as they are.
 *
 * The SDK gives every POST the transport's own signal, aborted only when the transport closes, and
 * reads a call's answer on after the call has ended (a stream that never ends, an endless JSON body).
 * A stopped call's only mark on the wire is the `notifications/cancelled` the SDK posts for it, so that
 * POST aborts the request it names: the connection is closed (the server sees its response close) and
 * nothing of it is read any more. A JSON answer's read then fails (the SDK's `send` ends); a stream
 * handed on stays open and silent instead of ending or failing, since for a stream whose events had ids
 * the SDK would open it again (a GET with `Last-Event-ID`) to wait for an answer no one waits for.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isJSONRPCErrorResponse, isJSONRPCResultResponse, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { dispatchedEvent, EventSplitter, type SkippedEvent } from "./event-splitter.js";
import { ANSWER_TOO_LARGE, idAtEnd, idAtStart, MAX_MESSAGE_BYTES } from "./process-group-transport.js";

export function boundedFetch(limit: number = MAX_MESSAGE_BYTES, base: FetchLike = fetch): FetchLike {
  /** The posted requests whose answers are still being read, each with the abort that stops its read. */
  const reading = new Map<RequestId, AbortController>();
  return async (url, init) => {
    const cancelled = cancelledRequestOf(init?.body);
    if (cancelled !== undefined) reading.get(cancelled)?.abort(new Error(`the request ${cancelled} was cancelled`));
    const answers = requestIdOf(init?.body);
    if (answers === undefined) return bounded(await base(url, init), limit, undefined);
    const stop = new AbortController();
    reading.set(answers, stop);
    const done = () => {
      if (reading.get(answers) === stop) reading.delete(answers);
    };
    const answered = () => {
      stop.abort(new Error(`the request ${answers} was answered`));
      done();
    };
    try {
      const signal = init?.signal ? AbortSignal.any([init.signal, stop.signal]) : stop.signal;
      return bounded(await base(url, { ...init, signal }), limit, answers, { stopped: stop.signal, answered, done });
    } catch (error) {
      done();
      throw error;
    }
  };
}

/**
 * How the read of a posted request's answer ends: `stopped` once the call was cancelled or its answer
 * handed on, `answered` aborts the request once its answer is handed on, `done` when the read is over
 * either way.
 */
interface ReadEnd {
  stopped: AbortSignal;
  answered(): void;
  done(): void;
}

/**
 * How much of an error status's body is kept: the SDK puts all of it in its error message, of which a
 * refused call shows 500 characters and a failed start 200, so 4 KiB keeps all that is ever shown (an
 * error page's or a JSON-RPC error's start) while an endless body costs no more.
 */
export const ERROR_BODY_BYTES = 4096;
/** What ends an error status's body that was cut. */
export const ERROR_BODY_CUT = `… [cut: sigloop reads the first ${ERROR_BODY_BYTES} bytes of an error answer]`;

/** `response` with its body bounded (an error status's text, a success's JSON answer or event stream), else as it is, its read's `end` over at once. */
function bounded(response: Response, limit: number, answers: RequestId | undefined, end?: ReadEnd): Response {
  const body = response.body;
  const type = mediaType(response.headers.get("content-type"));
  if (!response.ok && body !== null) return withBody(response, boundedErrorText(body, end));
  const wrapped = response.ok && response.status !== 202 && body !== null && (type === "application/json" || type === "text/event-stream");
  if (!wrapped) {
    end?.done();
    return response;
  }
  if (type === "application/json") return withBody(response, boundedJson(body, limit, answers, end));
  return withBody(response, boundedEvents(silentOnceStopped(body, end), limit, answers, end));
}

/**
 * An error status's body up to `ERROR_BODY_BYTES` (cut where a character starts), then `ERROR_BODY_CUT`
 * if more came: the rest is not read, the body is cancelled, which closes its connection. Its read ends
 * (`end`) only once the body is read or given up: until then the call's cancellation still aborts the
 * request, so a short body the server never ends holds no connection past the call.
 */
function boundedErrorText(body: ReadableStream<Uint8Array>, end: ReadEnd | undefined): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const held: Uint8Array[] = [];
      let bytes = 0;
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        for (read = await reader.read(); !read.done && bytes + read.value.length <= ERROR_BODY_BYTES; read = await reader.read()) {
          held.push(read.value);
          bytes += read.value.length;
        }
      } finally {
        end?.done();
      }
      if (read.done) {
        for (const piece of held) controller.enqueue(piece);
        return controller.close();
      }
      await reader.cancel(new Error(`an error answer longer than the ${ERROR_BODY_BYTES} bytes sigloop reads of one`)).catch(() => undefined);
      const start = Buffer.concat([...held, read.value]);
      controller.enqueue(start.subarray(0, characterStart(start, ERROR_BODY_BYTES)));
      controller.enqueue(new TextEncoder().encode(ERROR_BODY_CUT));
      controller.close();
    },
    cancel(reason) {
      end?.done();
      return reader.cancel(reason);
    },
  });
}

/** The last offset at or before `at` where a UTF-8 character of `bytes` starts: a cut there splits none. */
function characterStart(bytes: Uint8Array, at: number): number {
  let start = at;
  // 10xxxxxx is a continuation byte: the character began before it.
  while (start > 0 && (bytes[start]! & 0xc0) === 0x80) start -= 1;
  return start;
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

/** The request a POSTed `notifications/cancelled` names; undefined for any other body. */
function cancelledRequestOf(body: RequestInit["body"] | undefined): RequestId | undefined {
  if (typeof body !== "string" || !body.includes("notifications/cancelled")) return undefined;
  try {
    const message: unknown = JSON.parse(body);
    if (typeof message !== "object" || message === null || !("method" in message) || message.method !== "notifications/cancelled" || !("params" in message)) return undefined;
    const { params } = message;
    const id = typeof params === "object" && params !== null && "requestId" in params ? params.requestId : undefined;
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

function boundedJson(body: ReadableStream<Uint8Array>, limit: number, answers: RequestId | undefined, end?: ReadEnd): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let held: Uint8Array[] = [];
      let bytes = 0;
      try {
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          bytes += read.value.length;
          if (bytes <= limit) held.push(read.value);
          else held = [];
        }
      } finally {
        end?.done();
      }
      if (bytes <= limit) for (const piece of held) controller.enqueue(piece);
      else if (answers !== undefined) controller.enqueue(new TextEncoder().encode(JSON.stringify(tooLargeAnswer(answers, bytes, limit))));
      else return controller.error(tooLargeError(bytes, limit));
      controller.close();
    },
    cancel(reason) {
      end?.done();
      return reader.cancel(reason);
    },
  });
}

/**
 * `body` as it comes, until the call it answers is stopped: the read's failure then (the aborted
 * connection's) is not passed on, and the stream stays open with nothing more in it.
 */
function silentOnceStopped(body: ReadableStream<Uint8Array>, end: ReadEnd | undefined): ReadableStream<Uint8Array> {
  if (end === undefined) return body;
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const read = await reader.read();
        if (!read.done) return controller.enqueue(read.value);
        end.done();
        controller.close();
      } catch (error) {
        end.done();
        if (!end.stopped.aborted) controller.error(error);
      }
    },
    cancel(reason) {
      end.done();
      return reader.cancel(reason);
    },
  });
}

/**
 * `body`'s events, each past `limit` skipped (the error in its place if it answers a call), and, on a
 * posted request's stream, nothing after the event that answers it: the request is then ended (`end`).
 */
function boundedEvents(body: ReadableStream<Uint8Array>, limit: number, posted: RequestId | undefined, end: ReadEnd | undefined): ReadableStream<Uint8Array> {
  let events: EventSplitter | undefined;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        const watch = posted !== undefined && end !== undefined ? answerWatch(posted) : undefined;
        let over = false;
        const handOn = (event: readonly Uint8Array[]) => {
          if (over) return;
          for (const piece of event) controller.enqueue(piece);
          const ending = watch?.(event);
          if (ending === undefined) return;
          over = true;
          // The SDK's parser holds back an event's last CR until the byte after it (the LF of a CRLF or
          // not), and no byte follows on a stream ended or left silent here: an LF makes it a CRLF.
          if (endsWithCR(event)) controller.enqueue(LINE_FEED);
          if (ending === "close") controller.terminate();
          end!.answered();
        };
        events = new EventSplitter(limit, handOn, (skipped) => {
          const answer = skippedAnswer(skipped, posted);
          if (answer === undefined) return;
          const eventId = answer.eventId !== undefined ? `id: ${answer.eventId}\n` : "";
          handOn([new TextEncoder().encode(`${eventId}event: message\ndata: ${JSON.stringify(tooLargeAnswer(answer.id, skipped.bytes, limit))}\n\n`)]);
        });
      },
      transform: (chunk) => events!.push(chunk),
      flush: () => events!.end(),
    }),
  );
}

/**
 * Follows a posted request's stream one whole event at a time, as the SDK reads it, and says how the
 * stream handed on ends once an event answers `posted` (a result or an error with its id): `close` for
 * a result, or an error on a stream none of whose events had an id; `silent` (left open, nothing more
 * in it) for an error on a stream that had one. The SDK opens a stream it may resume (one whose events
 * had ids) again with a GET and `Last-Event-ID` when it ends before a result: for an error too, since it
 * counts only a result as the answer, and that GET would wait for an answer already given.
 */
function answerWatch(posted: RequestId): (event: readonly Uint8Array[]) => "close" | "silent" | undefined {
  let first = true;
  let resumable = false;
  return (pieces) => {
    // The SDK's decoder drops a BOM at the stream's start only.
    const text = new TextDecoder("utf-8", { ignoreBOM: !first }).decode(pieces.length === 1 ? pieces[0] : Buffer.concat(pieces));
    first = false;
    const event = dispatchedEvent(text);
    if (event === undefined) return undefined;
    if (event.id !== undefined && event.id !== "") resumable = true;
    if (event.type !== undefined && event.type !== "message") return undefined;
    const answer = answerIn(event.data, posted);
    if (answer === undefined) return undefined;
    return answer === "error" && resumable ? "silent" : "close";
  };
}

/** Whether `data` is the SDK's answer to `posted`: a result, an error, or neither (undefined). */
function answerIn(data: string, posted: RequestId): "result" | "error" | undefined {
  // A notification or a request, by far the most events before an answer, needs no parse: the SDK's schemas take no answer with a `method`.
  if (METHOD_AT_START.test(data)) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (isJSONRPCResultResponse(message)) return sameRequest(message.id, posted) ? "result" : undefined;
  if (isJSONRPCErrorResponse(message)) return sameRequest(message.id, posted) ? "error" : undefined;
  return undefined;
}

/** Whether an answer's id is the posted request's as the SDK matches them: as numbers (`"7"` answers 7). */
function sameRequest(id: RequestId | undefined, posted: RequestId): boolean {
  return id === posted || Number(id) === Number(posted);
}

const LINE_FEED = new Uint8Array([0x0a]);

function endsWithCR(event: readonly Uint8Array[]): boolean {
  return event.at(-1)?.at(-1) === 0x0d;
}

/** `{"method":` or `{"jsonrpc":"2.0","method":`: a notification or a request, as the SDKs write them. */
const METHOD_AT_START = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"method"\s*:/;

/**
 * The request a skipped event answers (the id its message names, else the posted request's) and the
 * event's own id; undefined for an event that answers none: one with no `data` line (a huge comment,
 * which carries no message), a notification or request of the server's, an event of a type the SDK
 * ignores, or one naming no id on a stream that answers no posted request.
 */
function skippedAnswer({ start, end, hasData }: SkippedEvent, posted: RequestId | undefined): { id: RequestId; eventId?: string } | undefined {
  if (!hasData) return undefined;
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
