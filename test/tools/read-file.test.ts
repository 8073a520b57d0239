import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { read_file } from "../../tools/read_file.js";
import { runWithToolContext } from "../../src/runtime/execution/tool-context.js";
import { WorkspaceError } from "../../src/runtime/workspace/workspace.js";
import { CHUNK_BYTES } from "../../src/runtime/workspace/read-lines.js";
import { io } from "./fs-spy.js";
import { makeSandbox, outsideMessage, rejected, SECRET, type Sandbox } from "./fixture.js";

vi.mock("node:fs/promises", async (original) => (await import("./fs-spy.js")).spiedFsPromises(await original()));

let box: Sandbox;
const MAX_RESULT_BYTES = 40_000;

beforeAll(() => {
  box = makeSandbox();
});
afterAll(() => box.remove());
afterEach(() => io.reset());

const read = (file: string, offset?: number, limit?: number): Promise<string> => box.call(() => read_file(file, offset, limit));
const numbered = (from: number, to: number): string =>
  Array.from({ length: to - from + 1 }, (_, index) => `line ${from + index}\n`).join("");

async function failure(run: Promise<unknown>): Promise<WorkspaceError> {
  const error = await run.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(WorkspaceError);
  expect((error as Error).message).not.toContain(SECRET);
  return error as WorkspaceError;
}

describe("read_file", () => {
  it("returns a whole text file as it is, with no note", async () => {
    box.write("notes.txt", "first\nsecond\nno newline at the end");
    expect(await read("notes.txt")).toBe("first\nsecond\nno newline at the end");
  });

  it("windows by lines and ends a cut result with the offset to read on", async () => {
    box.write("lines.txt", numbered(1, 10));
    expect(await read("lines.txt", 0, 3)).toBe(`${numbered(1, 3)}[read_file: lines 1-3 shown; the file goes on. Call read_file with offset 3 to read on.]`);
    expect(await read("lines.txt", 3, 3)).toBe(`${numbered(4, 6)}[read_file: lines 4-6 shown; the file goes on. Call read_file with offset 6 to read on.]`);
    expect(await read("lines.txt", 7, 3)).toBe(numbered(8, 10));
    expect(await read("lines.txt", 8)).toBe(numbered(9, 10));
    expect(await read("lines.txt", 10)).toBe('[read_file: "lines.txt" has 10 lines; there is nothing after offset 10.]');
    expect(await read("lines.txt", 12)).toBe('[read_file: "lines.txt" has 10 lines; there is nothing after offset 12.]');
  });

  it("drops a leading UTF-8 byte order mark", async () => {
    box.write("bom.txt", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("title\n")]));
    expect(await read("bom.txt")).toBe("title\n");
  });

  it("says so for an empty file", async () => {
    box.write("empty.txt", "");
    expect(await read("empty.txt")).toBe('[read_file: "empty.txt" is empty.]');
  });

  it("stops at the byte cap before a line that does not fit", async () => {
    box.write("wide.txt", `${"x".repeat(999)}\n`.repeat(300));
    expect(await read("wide.txt")).toBe(
      `${`${"x".repeat(999)}\n`.repeat(40)}[read_file: lines 1-40 shown; the result reached its ${MAX_RESULT_BYTES}-byte cap and the file goes on. Call read_file with offset 40 to read on.]`,
    );
  });

  it("cuts a single line longer than the cap at a character boundary, and offers the next line", async () => {
    box.write("long-line.txt", `${"€".repeat(40_000)}\nafter\n`);
    expect(await read("long-line.txt")).toBe(
      `${"€".repeat(13_333)}\n[read_file: line 1 is longer than the ${MAX_RESULT_BYTES}-byte cap; only its start is shown. Call read_file with offset 1 to read the lines after it.]`,
    );
    expect(await read("long-line.txt", 1)).toBe("after\n");
  });

  it.each([
    { chars: "2-byte", prefix: "a", line: `a${"é".repeat(30_000)}`, shown: `a${"é".repeat(19_999)}` },
    { chars: "3-byte", prefix: "ab", line: `ab${"日".repeat(20_000)}`, shown: `ab${"日".repeat(13_332)}` },
    { chars: "4-byte", prefix: "a", line: `a${"😀".repeat(20_000)}`, shown: `a${"😀".repeat(9_999)}` },
  ])("cuts a line of $chars characters at the 40,000-byte cap without breaking one, also across a chunk boundary", async ({ prefix, line, shown }) => {
    const note = (line: number): string =>
      `\n[read_file: line ${line} is longer than the 40000-byte cap; only its start is shown. Call read_file with offset ${line} to read the lines after it.]`;
    expect(Buffer.byteLength(shown)).toBeGreaterThan(40_000 - 4);
    box.write("multibyte.txt", `${line}\nafter\n`);
    expect(await read("multibyte.txt")).toBe(`${shown}${note(1)}`);
    // Skipped lines end so that the line's first multibyte character starts at the first chunk's last byte.
    const skipped = `${`${"a".repeat(99)}\n`.repeat(655)}${"a".repeat(34 - prefix.length)}\n`;
    expect(Buffer.byteLength(skipped + prefix)).toBe(CHUNK_BYTES - 1);
    box.write("multibyte-late.txt", `${skipped}${line}\nafter\n`);
    expect(await read("multibyte-late.txt", 656)).toBe(`${shown}${note(657)}`);
  });

  it("reads a character split across two chunks", async () => {
    // Skipped lines fill the first chunk but one byte, so the "€" after them starts at its last byte.
    const skipped = `${`${"a".repeat(99)}\n`.repeat(655)}${"a".repeat(34)}\n`;
    box.write("split.txt", `${skipped}€ and 日本語\n`);
    expect(Buffer.byteLength(skipped)).toBe(CHUNK_BYTES - 1);
    expect(await read("split.txt", 656)).toBe("€ and 日本語\n");
  });

  it("refuses a binary file (NUL bytes) with a note", async () => {
    box.write("program", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00]));
    expect(await rejected(read("program"), "path")).toBe('"program" looks like a binary file (it contains a NUL byte, in line 1); read_file only returns text.');
    box.write("late-nul.txt", `${numbered(1, 3)}tail\0\n`);
    expect(await rejected(read("late-nul.txt"), "path")).toBe('"late-nul.txt" looks like a binary file (it contains a NUL byte, in line 4); read_file only returns text.');
  });

  it("refuses invalid UTF-8, also when it only shows at the end of the file", async () => {
    box.write("latin1.txt", Buffer.concat([Buffer.from("ok\ncaf"), Buffer.from([0xe9]), Buffer.from("\n")]));
    expect(await rejected(read("latin1.txt"), "path")).toBe('"latin1.txt" looks like a binary file (it is not valid UTF-8, in line 2); read_file only returns text.');
    box.write("truncated.txt", Buffer.concat([Buffer.from("price: "), Buffer.from("€").subarray(0, 2)]));
    expect(await rejected(read("truncated.txt"), "path")).toBe('"truncated.txt" looks like a binary file (it is not valid UTF-8, in line 1); read_file only returns text.');
  });

  it("reads a sparse 2 GB file without reading more than it returns plus one chunk", async () => {
    const file = box.write("huge.log", numbered(1, 5000));
    truncateSync(file, 2 * 1024 ** 3);
    expect(await read("huge.log", 0, 100)).toBe(`${numbered(1, 100)}[read_file: lines 1-100 shown; the file goes on. Call read_file with offset 100 to read on.]`);
    expect(io.bytesRead).toBeLessThanOrEqual(CHUNK_BYTES);

    io.bytesRead = 0;
    const text = await read("huge.log");
    expect(text).toBe(`${numbered(1, 2000)}[read_file: lines 1-2000 shown; the file goes on. Call read_file with offset 2000 to read on.]`);
    expect(io.bytesRead).toBeLessThanOrEqual(Buffer.byteLength(numbered(1, 2000)) + CHUNK_BYTES);

    // Past the text, the sparse zeros are NUL bytes: refused after one more chunk, not 2 GB.
    io.bytesRead = 0;
    expect(await rejected(read("huge.log", 4990), "path")).toBe('"huge.log" looks like a binary file (it contains a NUL byte, in line 5001); read_file only returns text.');
    expect(io.bytesRead).toBeLessThanOrEqual(Buffer.byteLength(numbered(1, 5000)) + CHUNK_BYTES);
  });

  it("costs no more on an all-sparse 2 GB file than one chunk", async () => {
    truncateSync(box.write("zeros.bin", ""), 2 * 1024 ** 3);
    expect(await rejected(read("zeros.bin"), "path")).toBe('"zeros.bin" looks like a binary file (it contains a NUL byte, in line 1); read_file only returns text.');
    expect(io.bytesRead).toBe(CHUNK_BYTES);
  });

  it("says to use list_files for a directory, without opening it", async () => {
    mkdirSync(path.join(box.ws, "folder"));
    expect(await rejected(read("folder"), "path")).toBe('"folder" is a directory; use list_files to see what is in it.');
    expect(await rejected(read("."), "path")).toBe('"." is a directory; use list_files to see what is in it.');
    expect(io.opened).toEqual([]);
  });

  it("refuses a FIFO, directly or through a symlink inside the workspace, without opening it", async () => {
    execFileSync("mkfifo", [path.join(box.ws, "pipe")]);
    box.link("pipe-link", "pipe");
    expect(await rejected(read("pipe"), "path")).toBe('"pipe" is a fifo, not a regular file; read_file does not open devices, FIFOs or sockets.');
    expect(await rejected(read("pipe-link"), "path")).toBe('"pipe-link" is a fifo, not a regular file; read_file does not open devices, FIFOs or sockets.');
    expect(io.opened).toEqual([]);
  });

  it("refuses /dev/zero reached through a symlink in the workspace, without opening it", async () => {
    box.link("zero", "/dev/zero");
    expect(await rejected(read("zero"), "path")).toBe(outsideMessage("zero", box.ws));
    expect(io.opened).toEqual([]);
  });

  it("refuses a device inside the workspace without opening it", async () => {
    // With /dev as the workspace, /dev/zero is inside it: only the file type stops the read.
    const devRead = (file: string): Promise<string> =>
      runWithToolContext({ workspace: "/dev", signal: new AbortController().signal }, () => read_file(file));
    expect(await rejected(devRead("zero"), "path")).toBe('"zero" is a character device, not a regular file; read_file does not open devices, FIFOs or sockets.');
    expect(await rejected(devRead("/dev/null"), "path")).toBe('"/dev/null" is a character device, not a regular file; read_file does not open devices, FIFOs or sockets.');
    expect(io.opened).toEqual([]);
  });

  it("refuses a file whose directory is swapped for a link out while the path is walked", async () => {
    box.write("swap/report.txt", "inside report\n");
    mkdirSync(path.join(box.outside, "swap-target"));
    writeFileSync(path.join(box.outside, "swap-target", "report.txt"), `${SECRET}\n`);
    // The check looked at "swap" (a directory) and is about to enter it: now it is a link out.
    io.beforeOpening = {
      name: "swap",
      swap: () => {
        renameSync(path.join(box.ws, "swap"), path.join(box.ws, "swap-old"));
        symlinkSync(path.join(box.outside, "swap-target"), path.join(box.ws, "swap"));
      },
    };
    const error = await failure(read("swap/report.txt"));
    expect(io.opened).toEqual([]);
    expect(io.bytesRead).toBe(0);
    expect(error.code).toBe("changed");
    expect(error.message).toBe(
      `"swap/report.txt" changed while it was being opened (it is no longer what was checked inside the workspace ${box.ws}); nothing was read. Try again.`,
    );
  });

  it("refuses a file whose directory is moved away and replaced by a link out right before the file is opened", async () => {
    box.write("moved/report.txt", "inside report\n");
    mkdirSync(path.join(box.outside, "moved-target"));
    writeFileSync(path.join(box.outside, "moved-target", "report.txt"), `${SECRET}\n`);
    io.beforeOpening = {
      name: "report.txt",
      swap: () => {
        renameSync(path.join(box.ws, "moved"), path.join(box.base, "moved-out"));
        symlinkSync(path.join(box.outside, "moved-target"), path.join(box.ws, "moved"));
      },
    };
    // The file opened is the one checked (inside the held directory), but it is no longer in the workspace.
    expect((await failure(read("moved/report.txt"))).code).toBe("changed");
    expect(io.bytesRead).toBe(0);
  });

  it("refuses a file swapped for a symlink out, or for another file, between check and open", async () => {
    box.write("target.txt", "inside\n");
    io.beforeOpening = {
      name: "target.txt",
      swap: () => {
        renameSync(path.join(box.ws, "target.txt"), path.join(box.ws, "target-old.txt"));
        symlinkSync(path.join(box.outside, "secret.txt"), path.join(box.ws, "target.txt"));
      },
    };
    expect((await failure(read("target.txt"))).code).toBe("changed");

    box.write("victim.txt", "victim\n");
    box.write("other.txt", "another file\n");
    io.beforeOpening = { name: "victim.txt", swap: () => renameSync(path.join(box.ws, "other.txt"), path.join(box.ws, "victim.txt")) };
    expect((await failure(read("victim.txt"))).code).toBe("changed");
    expect(io.bytesRead).toBe(0);
  });

  it("refuses a FIFO swapped in between check and open, without hanging", async () => {
    box.write("soon-a-pipe.txt", "text\n");
    io.beforeOpening = {
      name: "soon-a-pipe.txt",
      swap: () => {
        renameSync(path.join(box.ws, "soon-a-pipe.txt"), path.join(box.ws, "was-text.txt"));
        execFileSync("mkfifo", [path.join(box.ws, "soon-a-pipe.txt")]);
      },
    };
    expect((await failure(read("soon-a-pipe.txt"))).code).toBe("changed");
  });

  it("keeps reading the file it opened when its name is swapped for a link out mid-read", async () => {
    const original = numbered(1, 20_000);
    box.write("growing.log", original);
    expect(Buffer.byteLength(original)).toBeGreaterThan(2 * CHUNK_BYTES);
    io.afterRead = () => {
      renameSync(path.join(box.ws, "growing.log"), path.join(box.ws, "growing.old"));
      symlinkSync(path.join(box.outside, "secret.txt"), path.join(box.ws, "growing.log"));
    };
    expect(await read("growing.log", 0, 2000)).toBe(`${numbered(1, 2000)}[read_file: lines 1-2000 shown; the file goes on. Call read_file with offset 2000 to read on.]`);
    // The next call sees the link, and refuses it.
    expect(await rejected(read("growing.log"), "path")).toBe(outsideMessage("growing.log", box.ws));
  });

  it("refuses a socket without opening it", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(box.ws, "app.sock"), resolve));
    try {
      expect(await rejected(read("app.sock"), "path")).toBe('"app.sock" is a socket, not a regular file; read_file does not open devices, FIFOs or sockets.');
      expect(io.opened).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("stops at once when the call is aborted", async () => {
    box.write("abort.txt", "text\n");
    const controller = new AbortController();
    controller.abort(new Error("tool call timed out"));
    await expect(box.call(() => read_file("abort.txt"), controller.signal)).rejects.toThrow("tool call timed out");
    expect(io.bytesRead).toBe(0);
  });
});
