/**
 * Server-sent events cut where each ends, for `bounded-fetch.ts`: each event is passed on whole once it
 * has ended, unless it grows past a limit; then it is skipped as it arrives and only what identifies it
 * is kept (its size, its first and last bytes, whether it had a `data` line). `dispatchedEvent` reads
 * one whole event's fields as the SDK's parser does, so that the message it hands on can be known.
 */
import { ID_WINDOW, lastBytes } from "./process-group-transport.js";

const LF = 10;
const CR = 13;
const COLON = 58;
/** How much of a skipped event's start is kept: its fields before `data` (an `id:` of a resumable server's), and the message's start. */
const EVENT_START_WINDOW = 1024;
/** The field name of the lines that make an event carry a message. */
const DATA = Buffer.from("data");
const BOM = Buffer.from("\uFEFF");

/** What is kept of an event past the limit: its size, its first and last bytes, and whether it had a `data` line. */
export interface SkippedEvent {
  bytes: number;
  start: Buffer;
  end: Buffer;
  hasData: boolean;
}

/**
 * Server-sent events cut where each ends (an empty line: `\n`, `\r\n` or `\r` twice). An event's
 * pieces are kept until its end and then passed on; one that passes `limit` is dropped as it arrives,
 * and only its size, its first and last bytes and whether one of its lines was a `data` field are said
 * at its end (a `data` line may come after a start longer than what is kept of it).
 */
export class EventSplitter {
  #pieces: Uint8Array[] = [];
  #size = 0;
  #skipping = false;
  /** Once skipping: the event's first bytes (up to `EVENT_START_WINDOW`) and its last `ID_WINDOW`. */
  #start: Buffer = Buffer.alloc(0);
  #end: Buffer = Buffer.alloc(0);
  #lineHasBytes = false;
  #afterCR = false;
  /** The last byte was a CR ending an event, which the next byte's being an LF or not decides the end of. */
  #endsAfterCR = false;
  /** How many bytes of the line so far spell the start of `data`; -1 once it is some other line. */
  #fieldAt = 0;
  #hasData = false;
  /** The bytes of a BOM the stream began with so far; -1 once past the stream's start. */
  #bomAt = 0;

  constructor(
    private readonly limit: number,
    /** One whole event, in the pieces it came in. */
    private readonly pass: (event: readonly Uint8Array[]) => void,
    private readonly skipped: (event: SkippedEvent) => void,
  ) {}

  push(chunk: Uint8Array): void {
    let from = 0;
    for (let at = 0; at < chunk.length; at++) {
      const byte = chunk[at]!;
      if (this.#endsAfterCR) {
        // An event ended by a CR: the LF of a CRLF there is still its own.
        this.#endsAfterCR = false;
        this.#afterCR = false;
        const end = byte === LF ? at + 1 : at;
        this.#take(chunk.subarray(from, end));
        this.#endEvent();
        from = end;
        if (byte === LF) continue;
      }
      const afterCR = this.#afterCR;
      this.#afterCR = byte === CR;
      // The LF of a CRLF ends no second line.
      if (byte === LF && afterCR) continue;
      if (byte !== LF && byte !== CR) {
        this.#lineHasBytes = true;
        if (this.#fieldAt >= 0) this.#spell(byte);
        continue;
      }
      if (this.#lineHasBytes) {
        this.#lineHasBytes = false;
        // `data` alone on its line is a data field too, with an empty value.
        if (this.#fieldAt === DATA.length) this.#hasData = true;
        this.#fieldAt = 0;
        this.#bomAt = -1;
        continue;
      }
      if (byte === CR) {
        this.#endsAfterCR = true;
        continue;
      }
      this.#take(chunk.subarray(from, at + 1));
      this.#endEvent();
      from = at + 1;
    }
    if (from < chunk.length) this.#take(chunk.subarray(from));
  }

  /** The stream ended: what is left of an event goes on as it is, for the SDK's parser to judge. */
  end(): void {
    this.#endsAfterCR = false;
    this.#endEvent();
  }

  /** Follows the line's first bytes as far as they can still be the field name `data` and its colon. */
  #spell(byte: number): void {
    // The SDK's parser drops a BOM at the stream's start, before the first field.
    if (this.#bomAt >= 0 && byte === BOM[this.#bomAt]) {
      this.#bomAt += 1;
      if (this.#bomAt === BOM.length) this.#bomAt = -1;
      return;
    }
    this.#bomAt = -1;
    if (this.#fieldAt < DATA.length) this.#fieldAt = byte === DATA[this.#fieldAt] ? this.#fieldAt + 1 : -1;
    else {
      if (byte === COLON) this.#hasData = true;
      this.#fieldAt = -1;
    }
  }

  #take(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.#size += piece.length;
    if (this.#skipping) {
      this.#end = lastBytes([this.#end, piece]);
      return;
    }
    if (this.#size <= this.limit) {
      this.#pieces.push(piece);
      return;
    }
    this.#skipping = true;
    // The pieces held so far are the event's start; copies, so that no chunk is kept alive by them.
    this.#start = firstBytes(this.#pieces, piece, EVENT_START_WINDOW);
    this.#end = lastBytes([...lastPieces(this.#pieces, ID_WINDOW), piece]);
    this.#pieces = [];
  }

  #endEvent(): void {
    if (this.#skipping) this.skipped({ bytes: this.#size, start: this.#start, end: this.#end, hasData: this.#hasData || this.#fieldAt === DATA.length });
    else if (this.#pieces.length > 0) this.pass(this.#pieces);
    this.#pieces = [];
    this.#size = 0;
    this.#skipping = false;
    this.#start = Buffer.alloc(0);
    this.#end = Buffer.alloc(0);
    this.#fieldAt = 0;
    this.#hasData = false;
    this.#bomAt = -1;
  }
}

/** The fields of an event the SDK's parser dispatches: its type (undefined for the default one), its `id`, its `data` lines joined. */
export interface DispatchedEvent {
  type?: string;
  id?: string;
  data: string;
}

/**
 * What the SDK's parser (eventsource-parser) makes of one whole event's text: its fields up to the empty
 * line that dispatches it (`name: value`, one space after the colon dropped, comments skipped, an `id`
 * holding NUL ignored); undefined for an event it does not dispatch (no `data` line, or no empty line:
 * the unended rest of a stream).
 */
export function dispatchedEvent(text: string): DispatchedEvent | undefined {
  let data: string | undefined;
  let type: string | undefined;
  let id: string | undefined;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") return data === undefined ? undefined : { data, ...(type !== undefined ? { type } : {}), ...(id !== undefined ? { id } : {}) };
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (name === "data") data = data === undefined ? value : `${data}\n${value}`;
    // An empty type is the default one.
    else if (name === "event") type = value === "" ? undefined : value;
    else if (name === "id" && !value.includes("\0")) id = value;
  }
  return undefined;
}

/** A copy of the first `bytes` bytes of `pieces` followed by `last`. */
function firstBytes(pieces: readonly Uint8Array[], last: Uint8Array, bytes: number): Buffer {
  const kept: Uint8Array[] = [];
  let held = 0;
  for (let index = 0; index <= pieces.length && held < bytes; index++) {
    const piece = (index < pieces.length ? pieces[index]! : last).subarray(0, bytes - held);
    kept.push(piece);
    held += piece.length;
  }
  return Buffer.concat(kept);
}

/** The last pieces of `pieces` that hold at least `bytes` bytes together (all of them when they hold fewer). */
function lastPieces(pieces: readonly Uint8Array[], bytes: number): Uint8Array[] {
  let from = pieces.length;
  for (let held = 0; from > 0 && held < bytes; from--) held += pieces[from - 1]!.length;
  return pieces.slice(from);
}
