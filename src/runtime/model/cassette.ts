/**
 * Cassettes: every model exchange of a session as one JSON line, written by `--record FILE` and replayed
 * by the testing kit (`replayCassette`, src/testing/replay-cassette.ts). The format (docs/testing.md):
 *
 *     {"cassette":"sigloop","version":1}
 *     {"request":{"method":"POST","path":"/v1/messages","body":{…}},"response":{"status":200,"contentType":"text/event-stream","body":"event: message_start\n…"}}
 *
 * One line per HTTP attempt, in order (an SDK retry is an exchange of its own). The request keeps only
 * its method, its path (no host, no query) and its JSON body; no request header is written, so neither
 * a key nor `Authorization` can be. The response keeps its status, media type and body exactly as it
 * came (streamed events included), cut where the transport cut it, and the headers a retry depends on.
 * Keys are masked in both bodies (cassette-masking.ts).
 */
import { closeSync, constants, openSync, readFileSync, writeSync } from "node:fs";
import { maskExchange } from "./cassette-masking.js";
import type { KeyMask } from "./key-mask.js";

export const CASSETTE_HEADER = { cassette: "sigloop", version: 1 } as const;

export interface CassetteExchange {
  request: { method: string; path: string; body: unknown };
  response: {
    status: number;
    contentType: string;
    body: string;
    /** The response's headers that steer a client's retries (`retry-after`, `retry-after-ms`, `x-should-retry`), those it had. */
    headers?: Record<string, string>;
  };
}

/** The response headers a cassette keeps: the ones the SDKs and sigloop read to decide whether and when to retry. */
export const RECORDED_HEADERS = ["retry-after", "retry-after-ms", "x-should-retry"] as const;

/** Where exchanges go; `inFlight` holds the exchanges whose body is still arriving, each a function that writes it now. */
export interface ExchangeSink {
  record(exchange: CassetteExchange): void;
  readonly inFlight: Set<() => void>;
}

export interface CassetteWriter extends ExchangeSink {
  /** Writes the exchanges still in flight as received so far (the SDK may stop reading a body before its end), then closes. */
  close(): void;
}

/** Creates (or empties) `file` and writes its header; `mask` masks keys in every exchange (cassette-masking.ts). */
export function openCassette(file: string, mask: KeyMask): CassetteWriter {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC);
  const line = (value: unknown) => writeSync(fd, `${JSON.stringify(value)}\n`);
  line(CASSETTE_HEADER);
  let closed = false;
  const inFlight = new Set<() => void>();
  return {
    inFlight,
    record: (exchange) => {
      if (!closed) line(maskExchange(exchange, mask));
    },
    close() {
      if (closed) return;
      for (const finish of [...inFlight]) finish();
      closed = true;
      closeSync(fd);
    },
  };
}

export type CassetteReading = { ok: true; exchanges: CassetteExchange[] } | { ok: false; error: string };

export function readCassette(file: string): CassetteReading {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return { ok: false, error: `cannot read the cassette ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  // An editor's byte order mark is no part of the header; blank lines are skipped but keep their number, so `file:N` is the line an editor shows.
  const numbered = text.replace(/^\uFEFF/, "").split("\n").map((line, index) => ({ line, number: index + 1 }));
  const [header, ...lines] = numbered.filter(({ line }) => line.trim() !== "");
  const parsed = (line: string): unknown => {
    try {
      return JSON.parse(line);
    } catch {
      return undefined;
    }
  };
  // The replay sends these as they are: a value Node's server refuses (a line break, a status of 1000) would reset the agent's connection mid-test instead of naming the line.
  const visible = (value: string) => /^[\t\x20-\x7e]*$/.test(value);
  const responseProblem = ({ status, contentType, headers }: CassetteExchange["response"]): string | undefined => {
    if (!Number.isInteger(status) || status < 100 || status > 599) return `response.status must be an HTTP status (an integer from 100 to 599), not ${status}`;
    if (!visible(contentType)) return `response.contentType must be a media type of visible ASCII characters, spaces and tabs (no line break), not ${JSON.stringify(contentType)}`;
    for (const [name, value] of Object.entries(headers ?? {})) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return `response.headers must be named by HTTP header names, not ${JSON.stringify(name)}`;
      // The replay frames the body as recorded and sends response.contentType: a recorded length or encoding would contradict it.
      if (["content-type", "content-length", "content-encoding", "transfer-encoding", "connection"].includes(name.toLowerCase())) return `response.headers must not hold ${JSON.stringify(name)}: the replay sends the body as recorded, with response.contentType`;
      if (!visible(value)) return `response.headers[${JSON.stringify(name)}] must be visible ASCII characters, spaces and tabs (no line break), not ${JSON.stringify(value)}`;
    }
    return undefined;
  };
  const head = header === undefined ? undefined : parsed(header.line);
  if (!isRecord(head) || head.cassette !== "sigloop" || head.version !== 1) return { ok: false, error: `${file} is not a sigloop cassette (its first line must be ${JSON.stringify(CASSETTE_HEADER)})` };
  const exchanges: CassetteExchange[] = [];
  for (const { line, number } of lines) {
    const value = parsed(line);
    if (!isExchange(value)) return { ok: false, error: `${file}:${number}: not a cassette exchange ({ request: { method, path, body }, response: { status, contentType, body, headers? } })` };
    const problem = responseProblem(value.response);
    if (problem !== undefined) return { ok: false, error: `${file}:${number}: ${problem}` };
    exchanges.push(value);
  }
  return { ok: true, exchanges };
}

/** The shape of an exchange line; `response.headers`, which older cassettes lack, only as an object of strings. */
function isExchange(value: unknown): value is CassetteExchange {
  if (!isRecord(value) || !isRecord(value.request) || !isRecord(value.response)) return false;
  const { request, response } = value;
  const headers = response.headers;
  const headersFit = headers === undefined || (isRecord(headers) && Object.values(headers).every((header) => typeof header === "string"));
  return typeof request.method === "string" && typeof request.path === "string" && typeof response.status === "number" && typeof response.contentType === "string" && typeof response.body === "string" && headersFit;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
