/**
 * `sseEvents`, the Responses dialect's reader of a streamed body: the same events and errors as the
 * openai SDK's own decoder for any stream, however it is split into chunks and whatever its line ends;
 * events the dialect does not read are skipped unparsed; a cut body ends quietly, a broken one throws.
 */
import fc from "fast-check";
import OpenAI, { APIError } from "openai";
import { Stream } from "openai/core/streaming";
import { describe, expect, it } from "vitest";
import { sseEvents, type SseEventOptions } from "../../../src/runtime/model/sse-events.js";

const readsAll: SseEventOptions = { reads: () => true, apiError: (error, headers) => new APIError(undefined, error, undefined, headers) };

/** A body that hands out `chunks` one read at a time, then ends (or fails with `failure`). */
function bodyOf(chunks: Uint8Array[], failure?: Error, onCancel?: () => void): Response {
  let index = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < chunks.length) controller.enqueue(chunks[index++]!);
      else if (failure !== undefined) controller.error(failure);
      else controller.close();
    },
    cancel: () => onCancel?.(),
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream", "x-request-id": "req_1" } });
}

/** The SDK logs each malformed event to the console; the test has no use for those lines. */
const quietClient = new OpenAI({ apiKey: "unused", logLevel: "off" });
const encode = (text: string) => new TextEncoder().encode(text);

/** What an iteration gave: every event, then how it ended. */
async function outcome(events: AsyncIterable<unknown>): Promise<{ events: unknown[]; error?: string }> {
  const seen: unknown[] = [];
  try {
    for await (const event of events) seen.push(event);
    return { events: seen };
  } catch (error) {
    return { events: seen, error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
  }
}

/** Splits bytes at the given cut points (any byte, the middle of a UTF-8 character included). */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    if (point > start) chunks.push(bytes.slice(start, point));
    start = point;
  }
  return chunks;
}

const eventName = fc.option(fc.constantFrom("response.created", "response.output_text.delta", "response.completed", "message", "error", "ping"), { nil: undefined });
const jsonData = fc.oneof(
  fc.dictionary(fc.constantFrom("type", "delta", "text", "response", "é", "🙂"), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.constant({ error: { message: "The server had an error", type: "server_error" } }),
  fc.constant({ error: null }),
  fc.jsonValue({ maxDepth: 1 }),
);
const sseEvent = fc.record({ name: eventName, data: fc.oneof({ weight: 9, arbitrary: jsonData.map((value) => JSON.stringify(value)) }, { weight: 1, arbitrary: fc.constantFrom("[DONE]", "{not json", "") }), comment: fc.boolean() });
const lineEnd = fc.constantFrom("\n", "\r\n", "\r");

function streamText(events: Array<{ name: string | undefined; data: string; comment: boolean }>, end: string): string {
  return events.map(({ name, data, comment }) => `${comment ? `: keep-alive${end}` : ""}${name === undefined ? "" : `event: ${name}${end}`}data: ${data}${end}${end}`).join("");
}

describe("sseEvents", () => {
  it("gives the events and the error the openai SDK's decoder gives, for any stream, split anywhere, with LF, CRLF or CR line ends", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(sseEvent, { maxLength: 8 }), lineEnd, fc.array(fc.nat(), { maxLength: 6 }), async (events, end, cuts) => {
        const bytes = encode(streamText(events, end));
        const ours = await outcome(sseEvents(bodyOf(split(bytes, cuts)), readsAll));
        const sdk = await outcome(Stream.fromSSEResponse(bodyOf([bytes]), new AbortController(), quietClient));
        expect(ours).toEqual(sdk);
      }),
      { numRuns: 400 },
    );
  });

  it("joins the lines of a multi-line data field; an event whose blank line never came is not taken", async () => {
    for (const end of ["\n", "\r\n", "\r"]) {
      const text = `event: response.output_text.delta${end}data: {"delta":${end}data: "hi"}${end}${end}data: {"type":"response.completed"}${end}`;
      expect(await outcome(sseEvents(bodyOf([encode(text)]), readsAll))).toEqual({ events: [{ delta: "hi" }] });
    }
  });

  it("skips an event it does not read without parsing it; a read event that is not JSON is the SDK's SyntaxError", async () => {
    const reads: SseEventOptions = { ...readsAll, reads: (name) => name === "response.completed" };
    const text = 'event: response.created\ndata: {"response": {cut\n\nevent: response.completed\ndata: {"type":"response.completed"}\n\nevent: response.completed\ndata: {cut\n\n';
    expect(await outcome(sseEvents(bodyOf([encode(text)]), reads))).toEqual({
      events: [{ type: "response.completed" }],
      error: "SyntaxError: Error reading response: malformed server-sent event JSON.",
    });
  });

  it("always reads an error event, whatever the dialect reads, and throws the dialect's error with the event's error and headers", async () => {
    const seen: Array<{ error: unknown; requestId: string | null }> = [];
    const reads: SseEventOptions = {
      reads: () => false,
      apiError: (error, headers) => (seen.push({ error, requestId: headers.get("x-request-id") }), new Error("from the dialect")),
    };
    const text = 'event: response.created\ndata: {}\n\nevent: error\ndata: {"error":{"message":"busy","code":"server_error"}}\n\n';
    expect(await outcome(sseEvents(bodyOf([encode(text)]), reads))).toEqual({ events: [], error: "Error: from the dialect" });
    expect(seen).toEqual([{ error: { message: "busy", code: "server_error" }, requestId: "req_1" }]);
  });

  it("ends at data: [DONE] and cancels the rest of the body", async () => {
    let cancelled = false;
    const chunks = [encode('data: {"n":1}\n\ndata: [DONE]\n\n'), encode('data: {"n":2}\n\n')];
    expect(await outcome(sseEvents(bodyOf(chunks, undefined, () => (cancelled = true)), readsAll))).toEqual({ events: [{ n: 1 }] });
    expect(cancelled).toBe(true);
  });

  it("a body cut short (an AbortError) ends quietly after the events that came; any other failure is thrown", async () => {
    const first = encode('data: {"n":1}\n\ndata: {"n":');
    const cut = new DOMException("the response body was cut: idle", "AbortError");
    expect(await outcome(sseEvents(bodyOf([first], cut), readsAll))).toEqual({ events: [{ n: 1 }] });
    expect(await outcome(sseEvents(bodyOf([first], new TypeError("terminated")), readsAll))).toEqual({ events: [{ n: 1 }], error: "TypeError: terminated" });
  });

  it("a caller that stops early cancels the body", async () => {
    let cancelled = false;
    const body = bodyOf([encode('data: {"n":1}\n\n'), encode('data: {"n":2}\n\n')], undefined, () => (cancelled = true));
    for await (const event of sseEvents(body, readsAll)) {
      expect(event).toEqual({ n: 1 });
      break;
    }
    expect(cancelled).toBe(true);
  });
});
