/**
 * The transport with a recorder on it (`--record FILE`): each exchange is handed to the cassette when its
 * response body has ended (or broke, or was cut), with the body exactly as the transport delivered it
 * and the headers that steer a retry (`RECORDED_HEADERS`). A successful
 * body is passed on chunk by chunk as it arrives, through a Node stream like the transport's own (so
 * streaming, the body bounds and Ctrl-C behave as without the recorder); an error body, which the SDK may
 * drop unread before a retry, is read whole first (error bodies are small).
 */
import { PassThrough, pipeline } from "node:stream";
import { RECORDED_HEADERS, type CassetteExchange, type ExchangeSink } from "./cassette.js";
import { bodyReader, textOf, withNodeBody } from "./node-http-fetch.js";

export function recordingFetch(transport: typeof fetch, sink: ExchangeSink): typeof fetch {
  return async (input, init) => {
    const response = await transport(input, init);
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const request: CassetteExchange["request"] = { method: init?.method ?? "GET", path: url.pathname, body: parsedBody(init?.body) };
    const contentType = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    const headers = retryHeaders(response.headers);
    const write = (body: string) => sink.record({ request, response: { status: response.status, contentType, body, ...(headers !== undefined ? { headers } : {}) } });
    const reader = bodyReader(response);
    if (reader === undefined) {
      write("");
      return response;
    }
    if (!response.ok) {
      const text = await textOf(reader.read);
      write(text);
      return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    return tapped(response, reader, write, sink.inFlight);
  };
}

function tapped(response: Response, reader: NonNullable<ReturnType<typeof bodyReader>>, write: (body: string) => void, inFlight: Set<() => void>): Response {
  const chunks: Uint8Array[] = [];
  let written = false;
  const finish = () => {
    if (written) return;
    written = true;
    inFlight.delete(finish);
    write(Buffer.concat(chunks).toString("utf8"));
  };
  inFlight.add(finish);
  async function* source() {
    try {
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        chunks.push(next.value);
        yield next.value;
      }
    } finally {
      finish();
    }
  }
  const body = new PassThrough();
  pipeline(source(), body, () => finish());
  // A body cut for silence is destroyed while its read still waits: written now, in its place before the retry's.
  body.once("close", finish);
  // As the transport's own bodies do: a body the SDK drops unread closes at once (node-http-fetch.ts).
  return withNodeBody(new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers }), body, async () => {
    // Written now: the SDK stops reading at the end marker, and the session may close the cassette next.
    finish();
    body.destroy();
    reader.cancel().catch(() => undefined);
  });
}

/** The headers of `RECORDED_HEADERS` the response had, so that a replay retries as the recorded run did. */
function retryHeaders(headers: Headers): Record<string, string> | undefined {
  const kept = RECORDED_HEADERS.flatMap((name) => {
    const value = headers.get(name);
    return value === null ? [] : [[name, value] as const];
  });
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}

function parsedBody(body: unknown): unknown {
  if (typeof body !== "string") return null;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
