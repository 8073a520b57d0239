/**
 * Cassettes: every model exchange of a session as one JSON line, written by `--record FILE` and replayed
 * by the testing kit (`replayCassette`, src/testing/replay-cassette.ts). The format (docs/testing.md):
 *
 *     {"cassette":"sigloop","version":1}
 *     {"request":{"method":"POST","path":"/v1/messages","body":{…}},"response":{"status":200,"contentType":"text/event-stream","body":"event: message_start\n…"}}
 *
 * One line per HTTP attempt, in order (an SDK retry is an exchange of its own). The request keeps only
 * its method, its path (no host, no query) and its JSON body; no header is written, so neither a key nor
 * `Authorization` can be. The response keeps its status, media type and body exactly as it came
 * (streamed events included), cut where the transport cut it. Keys are masked in both bodies.
 */
import { closeSync, constants, openSync, readFileSync, writeSync } from "node:fs";

export const CASSETTE_HEADER = { cassette: "sigloop", version: 1 } as const;

export interface CassetteExchange {
  request: { method: string; path: string; body: unknown };
  response: { status: number; contentType: string; body: string };
}

/** Where exchanges go; `inFlight` holds the exchanges whose body is still arriving, each a function that writes it now. */
export interface ExchangeSink {
  record(exchange: CassetteExchange): void;
  readonly inFlight: Set<() => void>;
}

export interface CassetteWriter extends ExchangeSink {
  /** Writes the exchanges still in flight as received so far (the SDK may stop reading a body before its end), then closes. */
  close(): void;
}

/** Creates (or empties) `file` and writes its header; `scrub` masks keys in every line. */
export function openCassette(file: string, scrub: (text: string) => string): CassetteWriter {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC);
  const line = (value: unknown) => writeSync(fd, `${scrub(JSON.stringify(value))}\n`);
  line(CASSETTE_HEADER);
  let closed = false;
  const inFlight = new Set<() => void>();
  return {
    inFlight,
    record: (exchange) => {
      if (!closed) line(exchange);
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
  const [header, ...lines] = text.split("\n").filter((line) => line.trim() !== "");
  const parsed = (line: string): unknown => {
    try {
      return JSON.parse(line);
    } catch {
      return undefined;
    }
  };
  const head = header === undefined ? undefined : parsed(header);
  if (!isRecord(head) || head.cassette !== "sigloop" || head.version !== 1) return { ok: false, error: `${file} is not a sigloop cassette (its first line must be ${JSON.stringify(CASSETTE_HEADER)})` };
  const exchanges: CassetteExchange[] = [];
  for (const [index, line] of lines.entries()) {
    const value = parsed(line);
    if (!isExchange(value)) return { ok: false, error: `${file}:${index + 2}: not a cassette exchange ({ request: { method, path, body }, response: { status, contentType, body } })` };
    exchanges.push(value);
  }
  return { ok: true, exchanges };
}

function isExchange(value: unknown): value is CassetteExchange {
  if (!isRecord(value) || !isRecord(value.request) || !isRecord(value.response)) return false;
  const { request, response } = value;
  return typeof request.method === "string" && typeof request.path === "string" && typeof response.status === "number" && typeof response.contentType === "string" && typeof response.body === "string";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
