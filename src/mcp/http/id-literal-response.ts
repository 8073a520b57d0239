/**
 * A response that carries an id JSON.stringify would not write as the client wrote it (id-literals.ts):
 * the SDK's transport writes the id's marker, so each chunk written to the response that holds a marker
 * has it replaced by its literal on the way out (the transport writes each message as one chunk). The
 * length changes, so a `Content-Length` the transport's adapter computed from the chunks is dropped and
 * the body goes chunked instead.
 */
import type { ServerResponse } from "node:http";
import { holdsIdLiterals, writeIdLiterals } from "../id-literals.js";

type Writer = (...args: unknown[]) => unknown;

export function writeIdLiteralsTo(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as Writer;
  const write = res.write.bind(res) as Writer;
  const end = res.end.bind(res) as Writer;
  res.writeHead = ((...args: unknown[]) => writeHead(...args.map(withoutLength))) as ServerResponse["writeHead"];
  res.write = ((chunk: unknown, ...rest: unknown[]) => write(rewritten(chunk), ...rest)) as ServerResponse["write"];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => end(rewritten(chunk), ...rest)) as ServerResponse["end"];
}

/** A headers object without `Content-Length`; any other argument of `writeHead` as it is. */
function withoutLength(arg: unknown): unknown {
  if (typeof arg !== "object" || arg === null || Array.isArray(arg)) return arg;
  return Object.fromEntries(Object.entries(arg).filter(([name]) => name.toLowerCase() !== "content-length"));
}

function rewritten(chunk: unknown): unknown {
  if (typeof chunk === "string") return writeIdLiterals(chunk);
  if (!(chunk instanceof Uint8Array)) return chunk;
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return holdsIdLiterals(bytes) ? Buffer.from(writeIdLiterals(bytes.toString("utf8")), "utf8") : chunk;
}
