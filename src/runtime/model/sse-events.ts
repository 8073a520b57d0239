/**
 * The JSON events of a streamed response body, read from the body here rather than through an SDK's
 * `Stream`, for a dialect that names its events and reads only some of them. SSE framing (CR, LF and
 * CRLF line ends, comments, multi-line data, events split across chunks) is eventsource-parser's.
 *
 * - An event whose `event:` name the dialect does not read is skipped without parsing its data; one with
 *   no name is parsed. The Responses stream is the case: its two largest events, `response.created` and
 *   `response.in_progress`, each carry the whole response object (instructions and tool definitions
 *   included) before any output, and the SDK's decoder parses every event after passing its bytes
 *   through four async generators (docs/model-client.md has the figures).
 * - For the events read, the SDK's rules stay: an `error` event, or data with an `error` member, throws
 *   the dialect's API error (`apiError`, no status); data that is not JSON throws a SyntaxError, as the
 *   SDK's does; `data: [DONE]` ends the stream.
 * - A body cut by a bound or by an abort ends the events quietly, as the SDK's iteration does: the caller
 *   tells why from its `RequestWatch` (read-event-stream.ts). Any other failure of the body is thrown.
 *   Leaving the iteration early (a reader that throws) cancels the body.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface SseEventOptions {
  /** Whether the dialect reads events of this `event:` name (an `error` event is always read). */
  reads(name: string): boolean;
  /** The dialect's API error for an error event's data (the SDK's `APIError` without a status). */
  apiError(error: {} | undefined, headers: Headers): Error;
}

export async function* sseEvents(response: Response, options: SseEventOptions): AsyncGenerator<unknown, void, undefined> {
  const body = response.body;
  if (body === null) return;
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => void pending.push(message) });
  const decoder = new TextDecoder();
  // Yields the events parsed so far that the dialect reads; false at `data: [DONE]`.
  function* take(): Generator<unknown, boolean, undefined> {
    for (const message of pending.splice(0)) {
      const name = message.event;
      if (name !== undefined && name !== "error" && !options.reads(name)) continue;
      if (message.data === "[DONE]") return false;
      const data = parseData(message.data);
      if (name === "error") throw options.apiError(present((isObject(data) ? data.error : undefined) ?? data), response.headers);
      if (isObject(data) && data.error) throw options.apiError(present(data.error), response.headers);
      yield data;
    }
    return true;
  }
  try {
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (!(yield* take())) return;
    }
    parser.feed(decoder.decode());
    yield* take();
  } catch (error) {
    if (error instanceof Error && error.name === "AbortError") return;
    throw error;
  }
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SyntaxError("Error reading response: malformed server-sent event JSON.");
  }
}

function present(value: unknown): {} | undefined {
  return value === null || value === undefined ? undefined : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
