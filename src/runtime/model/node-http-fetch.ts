/**
 * The transport under the model client: a `fetch` for the SDK's requests, sent through undici's dispatcher
 * API (the engine of Node's own `fetch`, without its WHATWG layer), a reader for the body of any
 * `Response`, and the `Response` of a body that is a Node stream (`withNodeBody`). Any SDK that takes a `fetch` can be given `nodeHttpFetch` and share its connections and proxies.
 *
 * Why not the global `fetch`: its WHATWG layer (a `Request`, a `ReadableStream` per body, a promise hop
 * per chunk) costs a measurable part of an agent turn against a local endpoint (docs/model-client.md). The
 * SDK reads little of a response: its status and headers, and its body either iterated (a stream) or whole
 * (`text()` / `json()`). So the `Response` returned here is a real one for status and headers, whose
 * `body` is a Node stream of the decoded bytes (async-iterable, as the SDK iterates bodies) and whose
 * `text()` and `json()` read that stream.
 *
 * It carries what the SDK sends: an http(s) URL with a string or byte body or none, and an abort signal.
 * Connections are kept alive; the body is decoded as `fetch` decodes it (gzip and br, asked for unless the
 * caller chose an `accept-encoding`; zlib-format deflate and stacked codings too); redirects are followed
 * with one request per hop (`authorization` dropped when the origin changes), and one to a URL holding
 * credentials is refused; `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` (lower case first) are honoured
 * (proxies.ts). Anything else (a body of another kind, options only `fetch` knows, such as a program's own
 * undici `dispatcher`) goes to the global `fetch` unchanged.
 */
import { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import type { IncomingHttpHeaders } from "undici/types/header.js";
import { malformedProxy, proxyFailure, proxySettings, refuseRedirectsWithCredentials } from "./proxies.js";
import { TransportRefusal } from "./transport-refusal.js";
import { decompressInterceptor, EnvHttpProxyAgent, redirectInterceptor } from "./undici-parts.js";

/**
 * How long an idle connection is kept for the next request: under the 5 s that common servers keep
 * one, so a request is not written into a connection the server is closing.
 */
const IDLE_CONNECTION_MS = 4_000;

/** As many as `fetch` follows. */
const MAX_REDIRECTS = 20;

let shared: Dispatcher | undefined;

/**
 * Made at the first request, so that the proxy variables a `.env` file sets count. No timeouts of undici's
 * own: the model client bounds the wait for headers and the body itself (watched-fetch.ts), as a user configured.
 * A proxy variable that is not a proxy URL fails the request with a `TransportRefusal` naming it (undici
 * would throw `ERR_INVALID_URL`, blamed on the endpoint); the CLI refuses it before any request
 * (cli/model-provider.ts), so this is for a program's own use of the library.
 */
function dispatcher(): Dispatcher {
  if (shared !== undefined) return shared;
  const malformed = malformedProxy(process.env);
  if (malformed !== undefined) throw new TransportRefusal(`because ${malformed.problem}`, malformed.hint);
  shared = new EnvHttpProxyAgent({
    ...proxySettings(process.env),
    keepAliveTimeout: IDLE_CONNECTION_MS,
    keepAliveMaxTimeout: IDLE_CONNECTION_MS,
    headersTimeout: 0,
    bodyTimeout: 0,
    // HTTP/1.1, as `fetch` speaks to these endpoints; a dropped body then closes its connection (below).
    allowH2: false,
  }).compose(
    refuseRedirectsWithCredentials,
    redirectInterceptor({ maxRedirections: MAX_REDIRECTS }),
    // Error bodies too: the SDK reads the API's message from them.
    decompressInterceptor({ skipErrorResponses: false }),
  );
  return shared;
}

/**
 * The `RequestInit` keys this transport honours. Others are a program's own `fetchOptions` (an undici
 * `dispatcher`, say) that only the global `fetch` understands: such a request goes there.
 * Symbol keys (watched-fetch.ts's) are not options.
 */
const CARRIED_OPTIONS = new Set(["method", "headers", "body", "signal"]);

/** Statuses whose response has no body (Fetch's "null body status"). */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** The `fetch` the model client sends its requests with. */
export const nodeHttpFetch: typeof fetch = (input, init = {}) => {
  const url = typeof input === "string" ? parsedURL(input) : input instanceof URL ? input : undefined;
  const payload = payloadOf(init.body);
  const carried = url !== undefined && (url.protocol === "http:" || url.protocol === "https:") && payload !== false;
  if (!carried || !Object.keys(init).every((key) => CARRIED_OPTIONS.has(key))) return fetch(input, init);
  return new Promise<Response>((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const exchange = new Exchange(url, signal, resolve, reject);
    dispatcher().dispatch(
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: (init.method ?? "GET") as Dispatcher.HttpMethod,
        headers: requestHeaders(init.headers),
        body: payload ?? null,
      },
      exchange,
    );
  });
};

/** The body as undici sends it, `undefined` for none, `false` for a kind only `fetch` knows how to send. */
function payloadOf(body: RequestInit["body"]): string | Uint8Array | undefined | false {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  return false;
}

/**
 * One request's handler: resolves with the response at its headers, then feeds its body stream. An error
 * reply's body is read from the connection only as the stream is read (the handler pauses at its headers),
 * so one the SDK drops unread (a status it retries) is still in flight, and dropping it closes its
 * connection (as cancelling `fetch`'s body does) rather than leaving it to the pool mid-response.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private body: ResponseBody | undefined;
  private settled = false;

  constructor(
    private readonly url: URL,
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (response: Response) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  private readonly onAbort = (): void => {
    const reason = abortReason(this.signal);
    this.controller?.abort(reason as Error);
    this.body?.destroy(reason as Error);
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // undici may start the request a moment after it was dispatched: an abort in between counts too.
    if (this.signal?.aborted) this.onAbort();
    else this.signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders, statusMessage?: string): void {
    // An interim response (103 Early Hints): the real one follows.
    if (statusCode < 200) return;
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(headers)) {
      for (const item of Array.isArray(value) ? value : [value ?? ""]) responseHeaders.append(name, item);
    }
    const response = new Response(null, { status: statusCode, statusText: statusMessage ?? "", headers: responseHeaders });
    if (NULL_BODY_STATUSES.has(statusCode)) {
      this.finish();
      this.resolve(response);
      return;
    }
    // Only an error reply waits: the SDK reads every successful body, and pausing one at its start stalls
    // undici's decompression of a stream on Node 24 (a br stream went silent until the idle timeout).
    if (statusCode >= 400) controller.pause();
    const body = new ResponseBody(controller);
    this.body = body;
    // An error of a body nobody reads must not become an uncaught 'error' event; readers still get it.
    body.on("error", () => undefined);
    body.on("close", () => this.finish());
    this.resolve(withNodeBody(response, body, () => body.release()));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.body !== undefined && !this.body.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    if (this.body === undefined) this.finish();
    else this.body.arrived();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.body === undefined) {
      this.finish();
      this.reject(proxyFailure(error, this.url) ?? error);
      return;
    }
    // As `fetch` fails a body whose connection broke (an abort keeps its own error).
    this.body.destroy(error.name === "AbortError" ? error : new TypeError("terminated", { cause: error }));
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    this.signal?.removeEventListener("abort", this.onAbort);
  }
}

/** A response body read from the connection as it is read; destroyed early, it aborts the exchange. */
class ResponseBody extends Readable {
  private whole = false;
  private delivered: Promise<void> | undefined;

  constructor(private readonly controller: Dispatcher.DispatchController) {
    super();
  }

  /**
   * undici has the whole body. It frees the connection for the next request one event-loop turn later
   * (scheduled right after this call): the body ends after that, so that a request made as soon as this
   * one is read goes over the same connection rather than opening another.
   */
  arrived(): void {
    this.whole = true;
    this.delivered = new Promise((resolve) => {
      queueMicrotask(() =>
        setImmediate(() => {
          this.push(null);
          resolve();
        }),
      );
    });
  }

  /**
   * Drops the body: one still arriving is aborted, which closes its connection (as cancelling `fetch`'s
   * body does); one that arrived whole is let go once its connection is free, so it is kept.
   */
  async release(): Promise<void> {
    if (this.delivered !== undefined) await this.delivered;
    this.destroy();
  }

  override _read(): void {
    this.controller.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.whole && !this.controller.aborted) this.controller.abort(error ?? new DOMException("The body was dropped", "AbortError"));
    callback(error);
  }
}

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
    read: () => chunks.next(),
    cancel: async () => {
      if (stream instanceof ResponseBody) await stream.release();
      else stream.destroy();
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

function requestHeaders(given: RequestInit["headers"]): Record<string, string> {
  const headers: Record<string, string> = {};
  (given instanceof Headers ? given : new Headers(given)).forEach((value, name) => {
    headers[name] = value;
  });
  // Not `deflate`, which servers send in two formats: asked for gzip and br, they use those.
  headers["accept-encoding"] ??= "gzip, br";
  return headers;
}

/**
 * `response` with `body`, a Node stream, as its body: `text()` and `json()` read it (configurable, so that a
 * wrapper, watched-fetch.ts, can put its own reads in their place), and `release` runs when the SDK drops
 * it unread (see `releasedOnReturn`). The recorder (recording-fetch.ts) makes its bodies this way too.
 */
export function withNodeBody(response: Response, body: Readable, release: () => Promise<void>): Response {
  releasedOnReturn(body, release);
  const text = () => textOf(nodeStreamReader(body).read);
  Object.defineProperties(response, {
    body: { value: body, configurable: true },
    text: { value: text, configurable: true },
    json: { value: async (): Promise<unknown> => JSON.parse(await text()), configurable: true },
  });
  return response;
}

/**
 * The SDK drops a body it will not read (a status it retries) by calling its iterator's `return()`, which
 * does nothing on a Node stream's iterator not yet started: the body would hold its connection open, and the
 * process alive, until the server closed it. Here `return()` runs `release` first (for this module's
 * bodies, `ResponseBody.release`).
 */
function releasedOnReturn(body: Readable, release: () => Promise<void>): void {
  // Node makes a stream's iterator with an async generator, whose `return` always exists.
  const iterate = body[Symbol.asyncIterator].bind(body) as () => AsyncGenerator<unknown, undefined>;
  Object.defineProperty(body, Symbol.asyncIterator, {
    configurable: true,
    value: () => {
      const chunks = iterate();
      const finish = chunks.return.bind(chunks);
      chunks.return = async (value) => {
        await release();
        return finish(value);
      };
      return chunks;
    },
  });
}
