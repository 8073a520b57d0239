/**
 * The transport under the model client: a `fetch` for the SDK's requests, over `node:http` /
 * `node:https` with kept-alive connections, and a reader for the body of any `Response`.
 *
 * Why not the global `fetch`: on Node 20 its WHATWG layer (a `Request`, a `ReadableStream` per body, a
 * promise hop per chunk) cost about 0.4 ms per request on top of the HTTP exchange, a fifth of an agent
 * turn against a local endpoint (docs/model-client.md). The SDK reads little of a response: its status
 * and headers, and its body either iterated (a stream) or whole (`text()` / `json()`). So the `Response`
 * returned here is a real one for status and headers, whose `body` is the Node stream of the decoded
 * bytes (async-iterable, as the SDK iterates bodies) and whose `text()` and `json()` read that stream.
 *
 * It carries what the SDK sends: an http(s) URL with a string body or none, and an abort signal. The
 * body is decoded as `fetch` decodes it (gzip and br, asked for unless the caller chose an
 * `accept-encoding`, and zlib-format deflate; stacked codings too). Anything else (a body of another kind, options only `fetch` knows, a redirect)
 * goes to the global `fetch` unchanged, so it behaves exactly as before (a redirect is followed there:
 * the request is sent again).
 */
import { channel } from "node:diagnostics_channel";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { pipeline, type Readable, type Transform } from "node:stream";
import zlib from "node:zlib";

/**
 * How long an idle connection is kept for the next request: under the 5 s that common servers keep
 * one, so a request is not written into a connection the server is closing.
 */
const IDLE_CONNECTION_MS = 4_000;

const agents = {
  http: new http.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
  https: new https.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
};

/**
 * Published with the URL once a request's body has been handed to the operating system, as undici's
 * `undici:request:bodySent` is for the global `fetch`: work that the model's latency should hide waits for it.
 */
export const REQUEST_SENT_CHANNEL = "sigloop:request:bodySent";
const requestSent = channel(REQUEST_SENT_CHANNEL);

/**
 * The `RequestInit` keys this transport honours. Others are a program's own `fetchOptions` (an undici
 * `dispatcher` for a proxy, say) that only the global `fetch` understands: such a request goes there.
 * Symbol keys (watched-fetch.ts's) are not options.
 */
const CARRIED_OPTIONS = new Set(["method", "headers", "body", "signal"]);

/** Statuses whose response has no body (Fetch's "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** The `fetch` the model client sends its requests with. */
export const nodeHttpFetch: typeof fetch = (input, init = {}) => {
  const url = typeof input === "string" ? parsedURL(input) : input instanceof URL ? input : undefined;
  const body = init.body;
  const carried = url !== undefined && (url.protocol === "http:" || url.protocol === "https:") && (body === undefined || body === null || typeof body === "string");
  if (!carried || !Object.keys(init).every((key) => CARRIED_OPTIONS.has(key))) return fetch(input, init);
  return new Promise<Response>((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const payload = typeof body === "string" ? Buffer.from(body) : undefined;
    const secure = url.protocol === "https:";
    const request = (secure ? https : http).request(url, {
      method: init.method ?? "GET",
      headers: requestHeaders(init.headers, payload),
      agent: secure ? agents.https : agents.http,
    });
    let decoded: Readable | undefined;
    const onAbort = () => {
      const reason = abortReason(signal);
      decoded?.destroy(reason as Error);
      request.destroy(reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const settled = () => signal?.removeEventListener("abort", onAbort);
    request.on("error", (error) => {
      settled();
      reject(error);
    });
    request.on("response", (response) => {
      if (isRedirect(response)) {
        settled();
        response.resume();
        resolve(fetch(input, init));
        return;
      }
      try {
        decoded = decodedBody(response);
        const stream = decoded;
        stream.on("close", settled);
        resolve(responseOf(response, stream));
      } catch (error) {
        settled();
        request.destroy();
        reject(error);
      }
    });
    request.end(payload, () => {
      if (requestSent.hasSubscribers) requestSent.publish(url);
    });
  });
};

/** Reads a body chunk by chunk: this module's Node streams and any other `Response`'s web stream alike. */
export interface BodyReader {
  read(): Promise<IteratorResult<Uint8Array, undefined>>;
  /** Stops the body and closes its connection; a pending `read` then fails or ends. */
  cancel(): Promise<void>;
}

export function bodyReader(response: Response): BodyReader | undefined {
  const body: unknown = response.body;
  if (body === null) return undefined;
  if (isNodeStream(body)) return nodeStreamReader(body);
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  return {
    read: async () => {
      const next = await reader.read();
      return next.done ? { done: true, value: undefined } : next;
    },
    cancel: () => reader.cancel(),
  };
}

/** Reads a body to its end as UTF-8 text, as `Response.text()` does (a leading BOM dropped). */
export async function textOf(read: BodyReader["read"]): Promise<string> {
  const parts: Uint8Array[] = [];
  for (let next = await read(); !next.done; next = await read()) parts.push(next.value);
  return new TextDecoder().decode(Buffer.concat(parts));
}

function nodeStreamReader(stream: Readable): BodyReader {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Uint8Array, undefined>;
  return {
    read: async () => {
      try {
        return await chunks.next();
      } catch (error) {
        // As `fetch` fails a body whose connection broke (an abort keeps its own error).
        throw error instanceof Error && error.name !== "AbortError" ? new TypeError("terminated", { cause: error }) : error;
      }
    },
    cancel: async () => {
      stream.destroy();
    },
  };
}

function isNodeStream(body: unknown): body is Readable {
  return typeof body === "object" && body !== null && typeof (body as Readable).pipe === "function";
}

function parsedURL(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function requestHeaders(given: RequestInit["headers"], payload: Buffer | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  (given instanceof Headers ? given : new Headers(given)).forEach((value, name) => {
    headers[name] = value;
  });
  // Not `deflate`, which servers send in two formats (DECODERS): asked for gzip and br, they use those.
  headers["accept-encoding"] ??= "gzip, br";
  if (payload !== undefined) headers["content-length"] = String(payload.length);
  return headers;
}

function isRedirect(response: IncomingMessage): boolean {
  const status = response.statusCode ?? 0;
  return status >= 300 && status < 400 && status !== 304 && response.headers.location !== undefined;
}

/** The body as `fetch` would hand it on: decoded when it came compressed in codings `fetch` knows. */
function decodedBody(response: IncomingMessage): Readable {
  // An error of a body nobody reads must not become an uncaught 'error' event.
  response.on("error", () => undefined);
  // Listed in the order they were applied, so undone from the last; one unknown and the body stays as sent.
  const codings = (response.headers["content-encoding"] ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length === 0 || !codings.every((coding) => Object.hasOwn(DECODERS, coding))) return response;
  const decoders = codings.reverse().map((coding) => DECODERS[coding]!());
  for (const decoder of decoders) decoder.on("error", () => undefined);
  return pipeline([response, ...decoders], () => undefined) as unknown as Readable;
}

/** Lenient like `fetch`: a compressed body cut at a flush point still yields what it had. */
const FLUSH = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };

/**
 * The codings decoded. `deflate` is not asked for (see `requestHeaders`): servers send it both as the zlib
 * format it names and as bare deflate data, and only the first is decoded here.
 */
const DECODERS: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(FLUSH),
  "x-gzip": () => zlib.createGunzip(FLUSH),
  deflate: () => zlib.createInflate(FLUSH),
  br: () => zlib.createBrotliDecompress(),
};

function responseOf(response: IncomingMessage, body: Readable): Response {
  const status = response.statusCode ?? 0;
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const result = new Response(null, { status, statusText: response.statusMessage ?? "", headers });
  if (NULL_BODY_STATUSES.has(status)) {
    body.resume();
    return result;
  }
  closedOnReturn(body);
  const text = () => textOf(nodeStreamReader(body).read);
  // Configurable, so that a wrapper (watched-fetch.ts) can put its own reads in their place.
  Object.defineProperties(result, {
    body: { value: body, configurable: true },
    text: { value: text, configurable: true },
    json: { value: async (): Promise<unknown> => JSON.parse(await text()), configurable: true },
  });
  return result;
}

/**
 * The SDK drops a body it will not read (a status it retries) by calling its iterator's `return()`, which
 * does nothing on a Node stream's iterator not yet started: the body would hold its connection open, and the
 * process alive, until the server closed it. Here `return()` closes the body first, as cancelling `fetch`'s does.
 */
function closedOnReturn(body: Readable): void {
  // Node makes a stream's iterator with an async generator, whose `return` always exists.
  const iterate = body[Symbol.asyncIterator].bind(body) as () => AsyncGenerator<unknown, undefined>;
  Object.defineProperty(body, Symbol.asyncIterator, {
    configurable: true,
    value: () => {
      const chunks = iterate();
      const finish = chunks.return.bind(chunks);
      chunks.return = (value) => {
        body.destroy();
        return finish(value);
      };
      return chunks;
    },
  });
}
