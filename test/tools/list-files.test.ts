import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { list_files } from "../../tools/list_files.js";
import { read_file } from "../../tools/read_file.js";
import { WorkspaceError } from "../../src/runtime/workspace/workspace.js";
import { io } from "./fs-spy.js";
import { showPath } from "../../src/runtime/workspace/list-directory.js";
import { makeSandbox, rejected, SECRET, type Sandbox } from "./fixture.js";

vi.mock("node:fs/promises", async (original) => (await import("./fs-spy.js")).spiedFsPromises(await original()));

let box: Sandbox;

beforeAll(() => {
  box = makeSandbox();
});
afterAll(() => box.remove());
afterEach(() => io.reset());

const list = (dir?: string, depth?: number): Promise<string> => box.call(() => list_files(dir, depth));

describe("list_files", () => {
  it("lists one entry per line, sorted, directories with a trailing slash, links and special files marked", async () => {
    box.write("tour/b.txt", "b");
    box.write("tour/A.md", "a");
    box.write("tour/src/index.ts", "");
    mkdirSync(path.join(box.ws, "tour", "empty"));
    box.link("tour/to-b", "b.txt");
    box.link("tour/to-src", "src");
    box.link("tour/to-root", "..");
    box.link("tour/out", "../../outside");
    box.link("tour/secret-link", path.join(box.outside, "secret.txt"));
    box.link("tour/broken", "missing.txt");
    box.link("tour/loop", "loop");
    execFileSync("mkfifo", [path.join(box.ws, "tour", "pipe")]);
    expect(await list("tour")).toBe([
      "tour/A.md",
      "tour/b.txt",
      "tour/broken -> (broken link)",
      "tour/empty/",
      "tour/loop -> (symbolic link loop)",
      "tour/out -> (outside the workspace)",
      "tour/pipe [fifo]",
      "tour/secret-link -> (outside the workspace)",
      "tour/src/",
      "tour/to-b -> tour/b.txt",
      "tour/to-root -> ./",
      "tour/to-src -> tour/src/",
    ].join("\n"));
  });

  it("recurses to the depth asked, without descending into symbolic links", async () => {
    expect(await list("tour", 3)).toBe([
      "tour/A.md",
      "tour/b.txt",
      "tour/broken -> (broken link)",
      "tour/empty/",
      "tour/loop -> (symbolic link loop)",
      "tour/out -> (outside the workspace)",
      "tour/pipe [fifo]",
      "tour/secret-link -> (outside the workspace)",
      "tour/src/",
      "tour/src/index.ts",
      "tour/to-b -> tour/b.txt",
      "tour/to-root -> ./",
      "tour/to-src -> tour/src/",
    ].join("\n"));
  });

  it("shows names with spaces and non-Latin scripts as they are, and quotes names that could be misread", async () => {
    const names = ["my notes.txt", "日本語.md", "Ελληνικά", "line\nbreak.txt", " leading.txt", "a -> b", "[draft]", '"quoted"', "tab\there", "nel\u0085x"];
    for (const name of names) box.write(path.join("names", name), `content of ${name}\n`);
    expect(await list("names")).toBe([
      "names/ leading.txt",
      'names/"quoted"',
      '"names/[draft]"',
      '"names/a -> b"',
      '"names/line\\nbreak.txt"',
      "names/my notes.txt",
      '"names/nel\\u0085x"',
      '"names/tab\\there"',
      "names/Ελληνικά",
      "names/日本語.md",
    ].join("\n"));
    // A quoted name is a JSON string: decoded, it is the path read_file takes.
    expect(await box.call(() => read_file(JSON.parse('"names/line\\nbreak.txt"') as string))).toBe("content of line\nbreak.txt\n");
  });

  it("quotes a path that starts with a quote or has spaces at either end", () => {
    expect(showPath('"x".txt')).toBe('"\\"x\\".txt"');
    expect(showPath(" x")).toBe('" x"');
    expect(showPath("x ")).toBe('"x "');
    expect(showPath("a\u2028b")).toBe('"a\\u2028b"');
    expect(showPath("dir/ x")).toBe("dir/ x");
  });

  it("shows any name on one line, and a quoted one decodes back to the name", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", minLength: 1, maxLength: 20 }), (name) => {
        const shown = showPath(name);
        expect(shown).not.toMatch(/[\n\r\u0085\u2028\u2029]/u);
        if (shown !== name) expect(JSON.parse(shown)).toBe(name);
        else expect(shown.startsWith('"')).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("says so for an empty directory", async () => {
    mkdirSync(path.join(box.ws, "void"));
    expect(await list("void")).toBe('[list_files: "void" is empty.]');
    expect(await list("void", 5)).toBe('[list_files: "void" is empty.]');
  });

  it("shows at most 1,000 of 5,000 files, then how many were left out", async () => {
    const names = Array.from({ length: 5000 }, (_, index) => `file-${String(index).padStart(4, "0")}.txt`);
    mkdirSync(path.join(box.ws, "many"));
    for (const name of names) writeFileSync(path.join(box.ws, "many", name), "");
    const lines = (await list("many")).split("\n");
    expect(lines).toHaveLength(1001);
    expect(lines.slice(0, 1000)).toEqual(names.slice(0, 1000).map((name) => `many/${name}`));
    expect(lines[1000]).toBe("[list_files: 1000 entries shown, 4000 more left out. List a subdirectory, or use a smaller depth, to see the rest.]");
  });

  it("says the count is a lower bound when the cap leaves directories unread", async () => {
    for (let index = 0; index < 600; index += 1) box.write(`deep/d1/f${String(index).padStart(3, "0")}`, "");
    for (let index = 0; index < 600; index += 1) box.write(`deep/d2/f${String(index).padStart(3, "0")}`, "");
    box.write("deep/d3/x", "");
    box.write("deep/z.txt", "");
    const lines = (await list("deep", 2)).split("\n");
    expect(lines).toHaveLength(1001);
    expect(lines[0]).toBe("deep/d1/");
    expect(lines[601]).toBe("deep/d2/");
    expect(lines[999]).toBe("deep/d2/f397");
    // Left out: 202 files of d2, then d3/ and z.txt; d3 itself was never read.
    expect(lines[1000]).toBe(
      "[list_files: 1000 entries shown, at least 204 more left out (the contents of 1 directory were not read). List a subdirectory, or use a smaller depth, to see the rest.]",
    );
  });

  it("lists the workspace root by default, and points a file to read_file", async () => {
    expect((await list()).split("\n")).toContain("tour/");
    box.write("plain.txt", "x");
    expect(await rejected(list("plain.txt"), "dir")).toBe('"plain.txt" is a file, not a directory; use read_file to read it.');
  });

  it("stops when the call is aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("tool call timed out"));
    await expect(box.call(() => list_files("tour", 3), controller.signal)).rejects.toThrow("tool call timed out");
  });

  it("refuses a directory swapped for a link out between check and open", async () => {
    box.write("swapdir/inside.txt", "");
    io.beforeOpening = {
      name: "swapdir",
      swap: () => {
        renameSync(path.join(box.ws, "swapdir"), path.join(box.ws, "swapdir-old"));
        symlinkSync(box.outside, path.join(box.ws, "swapdir"));
      },
    };
    const error = await box.call(() => list_files("swapdir")).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceError);
    expect((error as WorkspaceError).code).toBe("changed");
    expect((error as Error).message).not.toContain("secret.txt");
    expect((error as Error).message).not.toContain(SECRET);
  });
});
