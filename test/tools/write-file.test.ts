/**
 * write_file through the real CLI: what it creates and replaces on disk, what the model reads, and every
 * refusal (outside paths, links out, devices, directories, NUL, invalid UTF-8, the size limit).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync, chmodSync, linkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../cli/support.js";
import { useBuiltInTools } from "./file-tools-support.js";

const tools = useBuiltInTools();

function workspace(): { base: string; ws: string } {
  const base = tempDir();
  const ws = path.join(base, "ws");
  mkdirSync(ws);
  writeFileSync(path.join(base, "outside.txt"), "OUTSIDE\n");
  return { base, ws };
}

describe("write_file", () => {
  it("creates a file with missing parent directories, and says what it did", async () => {
    const { ws } = workspace();
    const run = await tools.run(ws, [{ name: "write_file", args: { path: "notes/deep/todo.md", content: "one\ntwo\n" } }]);
    expect(run.code).toBe(0);
    expect(run.results).toEqual(['created "notes/deep/todo.md": 8 bytes, 2 lines.']);
    expect(readFileSync(path.join(ws, "notes/deep/todo.md"), "utf8")).toBe("one\ntwo\n");
    const umask = process.umask();
    expect(statSync(path.join(ws, "notes/deep/todo.md")).mode & 0o777).toBe(0o666 & ~umask);
    expect(readdirSync(path.join(ws, "notes/deep"))).toEqual(["todo.md"]);
  });

  it("replaces a file keeping its mode, and never changes an inode another name shares", async () => {
    const { ws } = workspace();
    const file = path.join(ws, "run.sh");
    writeFileSync(file, "old\n");
    chmodSync(file, 0o751);
    linkSync(file, path.join(ws, "hard-link.sh"));
    const run = await tools.run(ws, [{ name: "write_file", args: { path: "run.sh", content: "new\nlast line without break" } }]);
    expect(run.results).toEqual(['replaced "run.sh": 27 bytes, 2 lines.']);
    expect(readFileSync(file, "utf8")).toBe("new\nlast line without break");
    expect(statSync(file).mode & 0o7777).toBe(0o751);
    expect(readFileSync(path.join(ws, "hard-link.sh"), "utf8")).toBe("old\n");
    expect(readdirSync(ws).sort()).toEqual(["hard-link.sh", "run.sh"]);
  });

  it("follows a link that stays inside and writes its target", async () => {
    const { ws } = workspace();
    mkdirSync(path.join(ws, "real"));
    writeFileSync(path.join(ws, "real/a.txt"), "a\n");
    symlinkSync("real/a.txt", path.join(ws, "link.txt"));
    symlinkSync("real/new.txt", path.join(ws, "dangling-inside.txt"));
    const run = await tools.run(ws, [
      { name: "write_file", args: { path: "link.txt", content: "through the link\n" } },
      { name: "write_file", args: { path: "dangling-inside.txt", content: "made\n" } },
    ]);
    expect(run.results).toEqual(['replaced "link.txt": 17 bytes, 1 line.', 'created "dangling-inside.txt": 5 bytes, 1 line.']);
    expect(readFileSync(path.join(ws, "real/a.txt"), "utf8")).toBe("through the link\n");
    expect(readFileSync(path.join(ws, "real/new.txt"), "utf8")).toBe("made\n");
  });

  it("refuses every path out of the workspace, and writes nothing outside", async () => {
    const { base, ws } = workspace();
    symlinkSync(path.join(base, "outside.txt"), path.join(ws, "out-link"));
    symlinkSync(path.join(base, "not-there.txt"), path.join(ws, "dangling-out"));
    symlinkSync(base, path.join(ws, "out-dir"));
    symlinkSync("loop-b", path.join(ws, "loop-a"));
    symlinkSync("loop-a", path.join(ws, "loop-b"));
    const paths = ["../outside.txt", path.join(base, "outside.txt"), "out-link", "dangling-out", "out-dir/new.txt", "a/../../outside.txt", "loop-a"];
    const run = await tools.run(ws, paths.map((p) => ({ name: "write_file", args: { path: p, content: "PWNED" } })));
    for (const [index, result] of run.results.entries()) {
      expect(result).toMatch(new RegExp(`^The path ${JSON.stringify(paths[index]).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is outside the workspace`));
    }
    expect(readFileSync(path.join(base, "outside.txt"), "utf8")).toBe("OUTSIDE\n");
    expect(readdirSync(base).sort()).toEqual(["outside.txt", "ws"]);
  });

  it("refuses directories, FIFOs and devices without opening them, NUL, invalid UTF-8 and content over 10 MB", async () => {
    const { ws } = workspace();
    mkdirSync(path.join(ws, "dir"));
    execFileSync("mkfifo", [path.join(ws, "fifo")]);
    symlinkSync("/dev/null", path.join(ws, "null-link"));
    const big = "x".repeat(10 * 1024 * 1024 + 1);
    const run = await tools.run(ws, [
      { name: "write_file", args: { path: "dir", content: "x" } },
      { name: "write_file", args: { path: ".", content: "x" } },
      { name: "write_file", args: { path: "fifo", content: "x" } },
      { name: "write_file", args: { path: "null-link", content: "x" } },
      { name: "write_file", args: { path: "nul.txt", content: "a\u0000b" } },
      { name: "write_file", args: '{"path":"surrogate.txt","content":"a\\ud800b"}' },
      { name: "write_file", args: { path: "big.txt", content: big } },
    ], ["--allow", "*", "--no-stream", "--max-response-bytes", String(32 * 1024 * 1024)]);
    expect(run.results).toEqual([
      '"dir" is a directory; write_file changes files only.',
      '"." is a directory; write_file changes files only.',
      '"fifo" is a fifo, not a regular file; write_file does not open devices, FIFOs or sockets.',
      expect.stringMatching(/^The path "null-link" is outside the workspace/),
      "The content was not written: it contains a NUL character (at character 2), and the file tools write text only.",
      "The content was not written: it is not valid UTF-8 text (a lone surrogate, \\ud800, at character 2).",
      "The content is 10485761 bytes of UTF-8, above write_file's limit of 10 MB (10485760 bytes), so nothing was written.",
    ]);
    expect(readdirSync(ws).sort()).toEqual(["dir", "fifo", "null-link"]);
  }, 30_000);
});
