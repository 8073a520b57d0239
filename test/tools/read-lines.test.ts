import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { readLines, type LinesRead, type ReadableFile } from "../../src/runtime/workspace/read-lines.js";

/** An in-memory file that counts the bytes handed out. */
function memoryFile(bytes: Uint8Array): ReadableFile & { bytesRead: number } {
  const file = {
    bytesRead: 0,
    stat: async () => ({ size: bytes.length }),
    read: async (buffer: Uint8Array, offset: number, length: number, position: number) => {
      const piece = bytes.subarray(position, Math.min(bytes.length, position + length));
      buffer.set(piece, offset);
      file.bytesRead += piece.length;
      return { bytesRead: piece.length };
    },
  };
  return file;
}

const never = new AbortController().signal;
const lineText = fc.string({ unit: fc.constantFrom("a", "b", " ", "\r", "é", "€", "日", "😀"), maxLength: 12 });

describe("readLines, following its own next offsets", () => {
  it("returns every line exactly once, in order, and never reads past the window's start + cap + two chunks", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineText, { maxLength: 30 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 4, max: 40 }),
        fc.integer({ min: 1, max: 7 }),
        async (lines, finalNewline, chunkBytes, maxBytes, limit) => {
          const text = lines.join("\n") + (finalNewline && lines.length > 0 ? "\n" : "");
          const bytes = Buffer.from(text);
          // The file's lines as read_file counts them: each with its newline, the last maybe without.
          const fileLines = text === "" ? [] : text.split(/(?<=\n)/);
          let offset = 0;
          for (let calls = 0; calls <= fileLines.length + 1; calls += 1) {
            const file = memoryFile(bytes);
            const read: LinesRead = await readLines(file, { offset, limit, maxBytes, chunkBytes, signal: never });
            if (read.kind !== "text") throw new Error(`unexpected ${read.kind}`);
            const start = Buffer.byteLength(fileLines.slice(0, offset).join(""));
            expect(file.bytesRead).toBeLessThanOrEqual(start + maxBytes + 2 * chunkBytes);
            const expected = fileLines.slice(offset, offset + read.lines);
            if (read.stop === "cut-line") {
              expect(read.lines).toBe(1);
              expect(expected[0]?.startsWith(read.text)).toBe(true);
              expect(Buffer.byteLength(read.text)).toBeLessThanOrEqual(maxBytes);
              expect(Buffer.byteLength(read.text)).toBeGreaterThan(maxBytes - 4);
            } else {
              expect(read.text).toBe(expected.join(""));
              expect(Buffer.byteLength(read.text)).toBeLessThanOrEqual(maxBytes);
            }
            if (read.stop === "end") {
              expect(read.totalLines).toBe(fileLines.length);
              expect(offset + read.lines).toBe(fileLines.length);
              return;
            }
            expect(read.lines).toBeGreaterThan(0);
            offset += read.lines;
          }
          throw new Error("the windows never reached the end of the file");
        },
      ),
      { numRuns: 300 },
    );
  });

  it("judges UTF-8 across chunk boundaries: a valid file is never binary, one bad byte always is", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(lineText, { minLength: 1, maxLength: 10 }), fc.integer({ min: 1, max: 5 }), fc.nat(), async (lines, chunkBytes, at) => {
        const good = Buffer.from(lines.join("\n"));
        const options = { offset: 0, limit: 1000, maxBytes: 10_000, chunkBytes, signal: never };
        expect((await readLines(memoryFile(good), options)).kind).toBe("text");
        const bad = Buffer.concat([good.subarray(0, at % (good.length + 1)), Buffer.from([0xff]), good.subarray(at % (good.length + 1))]);
        expect(await readLines(memoryFile(bad), options)).toMatchObject({ kind: "binary", reason: "utf8" });
      }),
      { numRuns: 300 },
    );
  });
});
