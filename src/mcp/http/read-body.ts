/**
 * Reads a request body up to `maxBytes`, counting bytes as they arrive (a chunked body has no length to
 * trust). A declared `Content-Length` over the limit is refused before anything is read. A body found too
 * large is not read further; `drainAfterRefusal` then lets the client finish sending (discarding it)
 * so the 413 reaches it before the connection closes, for at most `drainMs`. `dropUnreadBody` bounds the
 * same way any response that ended before its request's body was read.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export type BodyRead = { ok: true; body: Buffer } | { ok: false; tooLarge: boolean };

export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  if (Number(req.headers["content-length"]) > maxBytes) return Promise.resolve({ ok: false, tooLarge: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes) {
        finish({ ok: false, tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ ok: true, body: Buffer.concat(chunks) });
    const onError = (): void => finish({ ok: false, tooLarge: false });
    function finish(result: BodyRead): void {
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
