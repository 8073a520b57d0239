/**
 * Reading a streamed model response, the same in every dialect (Chat Completions, Anthropic Messages,
 * Responses): each parsed event (by the SDK's `Stream`, or for Responses by sse-events.ts) goes to the
 * dialect's reader, and the text the reader finds in it to the turn's `onText`; the stream counts as ended
 * only when neither the caller nor a body bound (idle, total time, size: watched-fetch.ts) cut it, since
 * both iterations end quietly when either cuts it. A stream
 * that ended before any of a turn arrived was no SSE stream at all unless its content type said it was
 * one (`notAnEventStream`). What the events mean, and how a stream that began must end, are the dialect's.
 *
 * The read ends at the dialect's terminal event (`ended`): the turn is what that event completes, so
 * nothing sent after it counts (a second terminal event, a stray delta) and a body the server then keeps
 * open is cancelled rather than waited for until the idle timeout throws a complete answer away. A reader
 * refuses a broken stream by throwing `MalformedStreamError`; the dialect words it as a broken body.
 *
 * Per event this costs the reader's `add` and nothing more (no allocation, no await of its own): the
 * per-turn path is benchmarked.
 */
import type { TurnRequest } from "../loop/types.js";
import type { ModelRequestError } from "./model-errors.js";
import type { RequestWatch } from "./watched-fetch.js";

/** A dialect's reader of its stream's events. */
export interface StreamEventReader<Event> {
  /** Takes one event; returns the answer text it adds, for display, if any. Throws on an event it refuses. */
  add(event: Event): string | undefined;
  /** The terminal event arrived: the read stops there and the body is cancelled (Chat Completions has none; `[DONE]` ends its stream). */
  readonly ended?: boolean;
}

/** An event that no well-formed stream of the dialect holds (the message says which and why): the response is dropped and resent. */
export class MalformedStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedStreamError";
  }
}

/**
 * Feeds the events of `stream` to `reader` up to its terminal event; throws when the caller or a body bound
 * cut the stream. Leaving the loop early cancels the body (each iteration aborts its request on `return`).
 */
export async function readEventStream<Event>(
  stream: AsyncIterable<Event>,
  reader: StreamEventReader<Event>,
  request: Pick<TurnRequest, "signal" | "onText">,
  watch: RequestWatch,
): Promise<void> {
  for await (const event of stream) {
    const text = reader.add(event);
    if (text !== undefined) request.onText?.(text);
    if (reader.ended === true) return;
  }
  if (request.signal.aborted || watch.cut !== undefined) throw new Error("aborted mid-stream");
}

/**
 * For a stream that ended before any of a turn arrived: the refusal of a body that was not an SSE stream
 * (an HTML page, JSON), worded with the dialect's `brokenBody`; undefined when it was one (the dialect then
 * says what was missing).
 */
export function notAnEventStream(watch: RequestWatch, baseURL: string, brokenBody: (message: string) => ModelRequestError): ModelRequestError | undefined {
  if (watch.contentType === "text/event-stream") return undefined;
  return brokenBody(`malformed response from ${baseURL}: expected an SSE stream (text/event-stream), got ${watch.contentType || "no content type"}`);
}
