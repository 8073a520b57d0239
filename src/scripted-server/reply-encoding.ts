/**
 * Compressed replies, as gateways send them: a reply goes out in the server's coding when the request's
 * `accept-encoding` lists it, and as it is otherwise. A stream is flushed after every event, so that the
 * client can act on each event as it arrives, compressed or not.
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import zlib from "node:zlib";

export type ContentCoding = "gzip" | "deflate" | "br";

/** Where a reply's text goes. */
export interface ReplyBody {
  /** Writes `text` and sends it at once. */
  write(text: string): void;
  end(text?: string): void;
}

/**
 * Starts a 200 reply and returns its body, encoded in `coding` if the request accepts it. A stream's
 * headers go out at once, before its first event.
 */
export function openReplyBody(
  res: ServerResponse,
  reply: { headers: OutgoingHttpHeaders; stream: boolean },
  coding: ContentCoding | undefined,
  acceptEncoding: string | undefined,
): ReplyBody {
  const encoded = coding !== undefined && accepts(acceptEncoding, coding);
  res.writeHead(200, encoded ? { ...reply.headers, "content-encoding": coding } : reply.headers);
  if (reply.stream) res.flushHeaders();
  if (!encoded) return { write: (text) => res.write(text), end: (text) => res.end(text) };
  const encoder = coding === "gzip" ? zlib.createGzip() : coding === "deflate" ? zlib.createDeflate() : zlib.createBrotliCompress();
  encoder.on("error", () => res.destroy());
  encoder.pipe(res);
  return {
    write(text) {
      encoder.write(text);
      encoder.flush();
    },
    end(text) {
      encoder.end(text);
    },
  };
}

function accepts(acceptEncoding: string | undefined, coding: ContentCoding): boolean {
  return (acceptEncoding ?? "").split(",").some((entry) => {
    const [name, ...params] = entry.trim().toLowerCase().split(";");
    return name === coding && !params.some((param) => /^\s*q=0(\.0*)?\s*$/.test(param));
  });
}
