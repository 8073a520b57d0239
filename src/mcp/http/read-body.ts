/**
 * Reads a request body up to `maxBytes`, counting bytes as they arrive (a chunked body has no length to
 * trust), within `msLeft`: a client that trickles its body would otherwise hold the connection and the
 * body's buffer until Node's whole-request bound (`REQUEST_TIMEOUT_MS` in serve-http.ts), and with no
 * answer saying why. A declared `Content-Length` over the limit is refused before anything is read. A
 * body found too large, or too slow, is not read further. After a 413 `drainAfterRefusal` lets the client
 * finish sending (discarding it) so the answer reaches it before the connection closes, for at most
 * `drainMs`. `dropUnreadBody` bounds the same way any response that ended before its request's body was
 * read.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export type BodyRead = { ok: true; body: Buffer } | { ok: false; problem: "too large" | "too slow" | "aborted" };

/** How long after its headers a request's body must have arrived whole. */
export const BODY_TIMEOUT_MS = 30_000;

export function readBody(req: IncomingMessage, maxBytes: number, msLeft: number): Promise<BodyRead> {
  if (Number(req.headers["content-length"]) > maxBytes) return Promise.resolve({ ok: false, problem: "too large" });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes) {
        finish({ ok: false, problem: "too large" });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ ok: true, body: Buffer.concat(chunks) });
    const onError = (): void => finish({ ok: false, problem: "aborted" });
    const timer = setTimeout(() => finish({ ok: false, problem: "too slow" }), Math.max(0, msLeft));
    function finish(result: BodyRead): void {
      clearTimeout(timer);
      req.off("data", onData).off("end", onEnd).off("error", onError).off("aborted", onError);
      resolve(result);
    }
    req.on("data", onData).on("end", onEnd).on("error", onError).on("aborted", onError);
  });
}

/** Called once the refusal is written with `Connection: close`: the rest of the body is read and dropped. */
export function drainAfterRefusal(req: IncomingMessage, res: ServerResponse, drainMs = 5000): void {
  const timer = setTimeout(() => req.socket.destroy(), drainMs).unref();
  req.on("error", () => undefined);
  req.once("end", () => clearTimeout(timer));
  res.once("close", () => clearTimeout(timer));
  req.resume();
}

/** The response has ended, the request's body has not: the rest is dropped as it arrives, for at most `ms`, then the connection closes. */
export function dropUnreadBody(req: IncomingMessage, ms: number): void {
  const timer = setTimeout(() => req.socket.destroy(), ms).unref();
  req.on("error", () => undefined);
  req.once("end", () => clearTimeout(timer));
  req.socket.once("close", () => clearTimeout(timer));
  req.resume();
}
