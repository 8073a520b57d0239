/**
 * Reads a window of lines from an open file in fixed chunks and stops as soon as the window is full, so a
 * read never goes further into the file than the window's start plus the byte cap plus two chunks,
 * whatever the file's size. Every byte read is checked: a NUL byte or invalid UTF-8 (judged across chunk
 * boundaries, so a character split between two chunks is fine) makes the file binary.
 */

/** Bytes per read. */
export const CHUNK_BYTES = 64 * 1024;

/** What `readLines` needs of an open file; a `FileHandle` has it. */
export interface ReadableFile {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<{ size: number }>;
}

export interface LineWindow {
  /** Lines to skip from the start. */
  offset: number;
  /** Most lines to return. */
  limit: number;
  /** Most bytes of text to return; a single line longer than this is cut. */
  maxBytes: number;
  signal: AbortSignal;
  /** Bytes per read (default `CHUNK_BYTES`); small values let tests put chunk boundaries everywhere. */
  chunkBytes?: number;
}

export type LinesRead =
  | {
      kind: "text";
      text: string;
      /** Lines returned; a cut line counts. */
      lines: number;
      /**
       * Why the text stops: `end` of file; `limit` lines reached or `bytes` cap reached with more to read;
       * `cut-line`: the first line of the window alone exceeds `maxBytes` and only its start is returned.
       */
      stop: "end" | "limit" | "bytes" | "cut-line";
      /** Lines in the file, known only when the read reached its end. */
      totalLines?: number;
    }
  | { kind: "binary"; reason: "nul" | "utf8"; line: number };

const NEWLINE = 0x0a;

/** Reads the lines `window` asks for from the start of `handle`. Throws the signal's reason when aborted. */
export async function readLines(handle: ReadableFile, window: LineWindow): Promise<LinesRead> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const chunkBytes = window.chunkBytes ?? CHUNK_BYTES;
  const buffer = Buffer.alloc(chunkBytes);
  const size = (await handle.stat()).size;
  const kept: string[] = [];
  let keptBytes = 0;
  // The line being read (0-based) and the pieces of it decoded so far.
  let line = 0;
  let partial: string[] = [];
  let partialBytes = 0;
  // Whether the line being read has begun (skipped lines keep no pieces, yet a last one still counts).
  let lineBegun = false;
  let position = 0;
  const decode = (bytes: Uint8Array, stream: boolean): string | undefined => {
    try {
      return decoder.decode(bytes, { stream });
    } catch {
      return undefined;
    }
  };
  const text = (stop: "end" | "limit" | "bytes" | "cut-line", totalLines?: number): LinesRead =>
    ({ kind: "text", text: kept.join(""), lines: Math.max(0, line - window.offset) + (stop === "cut-line" ? 1 : 0), stop, totalLines });

  for (;;) {
    window.signal.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    position += bytesRead;
    if (bytesRead === 0) {
      if (decode(new Uint8Array(0), false) === undefined) return { kind: "binary", reason: "utf8", line: line + 1 };
      if (lineBegun) {
        kept.push(...partial);
        line += 1;
      }
      return text("end", line);
    }
    const chunk = buffer.subarray(0, bytesRead);
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      const piece = chunk.subarray(start, end);
      if (piece.includes(0)) return { kind: "binary", reason: "nul", line: line + 1 };
      const inWindow = line >= window.offset;
      if (inWindow && keptBytes + partialBytes + piece.length > window.maxBytes) {
        if (kept.length > 0) return text("bytes");
        // The window's first line alone is over the cap: return its start, cut at a character boundary.
        const room = window.maxBytes - partialBytes;
        const head = decode(piece.subarray(0, room), true);
        if (head === undefined) return { kind: "binary", reason: "utf8", line: line + 1 };
        kept.push(...partial, head);
        return text("cut-line");
      }
      const decoded = decode(piece, true);
      if (decoded === undefined) return { kind: "binary", reason: "utf8", line: line + 1 };
      if (inWindow) {
        partial.push(decoded);
        partialBytes += piece.length;
      }
      start = end;
      if (newline === -1) {
        lineBegun = true;
        continue;
      }
      lineBegun = false;
      kept.push(...partial);
      keptBytes += partialBytes;
      partial = [];
      partialBytes = 0;
      line += 1;
      if (line >= window.offset + window.limit) {
        const more = start < chunk.length || position < size;
        return text(more ? "limit" : "end", more ? undefined : line);
      }
    }
  }
}
