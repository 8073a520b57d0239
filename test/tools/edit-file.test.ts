/**
 * edit_file through the real CLI: exact, byte-for-byte replacement and match counting (zero, one, many,
 * replace_all), CRLF files, a byte-order mark, no final newline, and each precise refusal.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../cli/support.js";
import { useBuiltInTools } from "./file-tools-support.js";

const tools = useBuiltInTools();

function workspaceWith(files: Record<string, string | Buffer>): string {
  const ws = tempDir();
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(ws, name), content);
  return ws;
}

const edit = (file: string, oldText: string, newText: string, replaceAll?: boolean) => ({
  name: "edit_file",
  args: { path: file, old_text: oldText, new_text: newText, ...(replaceAll !== undefined ? { replace_all: replaceAll } : {}) },
});

describe("edit_file", () => {
  it("replaces one exact match and says on which line", async () => {
    const ws = workspaceWith({ "a.ts": "const a = 1;\nconst b = 2;\nconst c = 3;\n" });
    const run = await tools.run(ws, [edit("a.ts", "const b = 2;", "const b = 20;")]);
    expect(run.results).toEqual(['edited "a.ts": 1 replacement, on line 2.']);
    expect(readFileSync(path.join(ws, "a.ts"), "utf8")).toBe("const a = 1;\nconst b = 20;\nconst c = 3;\n");
  });

  it("changes nothing for zero or several matches, and lists the lines each starts on (at most 20)", async () => {
    const many = Array.from({ length: 25 }, (_, i) => `x = ${i}\n`).join("");
    const ws = workspaceWith({ "a.txt": "one\ntwo\none\nthree\none\n", "many.txt": many });
    const run = await tools.run(ws, [edit("a.txt", "four", "4"), edit("a.txt", "one", "1"), edit("many.txt", "x = ", "y = ")]);
    expect(run.results).toEqual([
      'old_text was not found in "a.txt", so nothing was changed. It must match the file exactly, byte for byte (spaces, tabs and line breaks included): read the file again and copy the text.',
      'old_text occurs 3 times in "a.txt", starting on lines 1, 3 and 5, so nothing was changed. Send a longer old_text that occurs once, or set replace_all to true to replace all 3.',
      'old_text occurs 25 times in "many.txt", starting on lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 (the first 20 of 25), so nothing was changed. Send a longer old_text that occurs once, or set replace_all to true to replace all 25.',
    ]);
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("one\ntwo\none\nthree\none\n");
    expect(readFileSync(path.join(ws, "many.txt"), "utf8")).toBe(many);
  });

  it("replaces every match with replace_all, a multi-line piece included", async () => {
    const ws = workspaceWith({ "a.txt": "one\ntwo\none\nthree\none\n" });
    const run = await tools.run(ws, [edit("a.txt", "one\n", "1\n", true)]);
    expect(run.results).toEqual(['edited "a.txt": 3 replacements, starting on lines 1, 3 and 5.']);
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("1\ntwo\n1\nthree\n1\n");
  });

  it("keeps CRLF line ends, a byte-order mark and a missing final newline byte for byte", async () => {
    const crlf = "\uFEFFfirst\r\nsecond\r\nthird";
    const ws = workspaceWith({ "win.txt": crlf, "tail.txt": "a\nb" });
    const run = await tools.run(ws, [
      edit("win.txt", "second\r\nthird", "2nd\r\n3rd"),
      edit("tail.txt", "b", "B"),
    ]);
    expect(run.results).toEqual(['edited "win.txt": 1 replacement, on line 2.', 'edited "tail.txt": 1 replacement, on line 2.']);
    expect(readFileSync(path.join(ws, "win.txt"))).toEqual(Buffer.from("\uFEFFfirst\r\n2nd\r\n3rd", "utf8"));
    expect(readFileSync(path.join(ws, "tail.txt"), "utf8")).toBe("a\nB");
  });

  it("says when old_text has LF line ends and the file CRLF", async () => {
    const ws = workspaceWith({ "win.txt": "first\r\nsecond\r\n" });
    const run = await tools.run(ws, [edit("win.txt", "first\nsecond", "x")]);
    expect(run.results[0]).toMatch(/^old_text was not found in "win.txt", so nothing was changed\..* The file's lines end with CRLF \(\\r\\n\), and old_text's with \\n only\.$/);
  });

  it("refuses an empty old_text, identical texts, a binary file, a missing file, a directory and a file over 10 MB", async () => {
    const ws = workspaceWith({ "a.txt": "text\n", "bin.dat": Buffer.from([0x61, 0x0a, 0x00, 0x62]), "latin1.txt": Buffer.from([0xe9, 0x0a]) });
    mkdirSync(path.join(ws, "dir"));
    writeFileSync(path.join(ws, "big.txt"), "y".repeat(10 * 1024 * 1024 + 1));
    const run = await tools.run(ws, [
      edit("a.txt", "", "x"),
      edit("a.txt", "text", "text"),
      edit("bin.dat", "a", "b"),
      edit("latin1.txt", "a", "b"),
      edit("missing.txt", "a", "b"),
      edit("dir", "a", "b"),
      edit("big.txt", "y", "z"),
      edit("../a.txt", "a", "b"),
    ]);
    expect(run.results).toEqual([
      "old_text is empty, so there is nothing to find. Give the exact text to replace; to write a whole file, use write_file.",
      "old_text and new_text are the same, so the edit would change nothing.",
      '"bin.dat" looks like a binary file (it contains a NUL byte, in line 2); edit_file only changes text files.',
      '"latin1.txt" looks like a binary file (it is not valid UTF-8); edit_file only changes text files.',
      `"missing.txt" does not exist (in the workspace ${ws}), so there is nothing to edit. Use write_file to create it, or list_files to see what is there.`,
      '"dir" is a directory; edit_file changes files only.',
      '"big.txt" is 10485761 bytes, above edit_file\'s limit of 10 MB (10485760 bytes), so it cannot be edited.',
      expect.stringMatching(/^The path "\.\.\/a\.txt" is outside the workspace/),
    ]);
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("text\n");
  });

  it("refuses an edit whose result would pass 10 MB", async () => {
    const ws = workspaceWith({ "a.txt": "ab".repeat(4 * 1024 * 1024) });
    const run = await tools.run(ws, [edit("a.txt", "a", "aa", true)]);
    expect(run.results).toEqual(["The edited file would be 12582912 bytes, above edit_file's limit of 10 MB (10485760 bytes), so nothing was changed."]);
  });

  it("runs two edits of one file in one turn one after the other, in call order (no lost update)", async () => {
    const ws = workspaceWith({ "a.txt": "alpha\nbeta\n" });
    mkdirSync(path.join(ws, "sub"));
    const run = await tools.run(ws, [
      edit("a.txt", "alpha", "ALPHA"),
      edit("a.txt", "ALPHA\nbeta", "ALPHA\nBETA"),
      { name: "write_file", args: { path: "a.txt", content: "ALPHA\nBETA\ngamma\n" } },
      edit("./sub/../a.txt", "gamma", "GAMMA"),
    ]);
    expect(run.results).toEqual([
      'edited "a.txt": 1 replacement, on line 1.',
      'edited "a.txt": 1 replacement, on line 1.',
      'replaced "a.txt": 17 bytes, 3 lines.',
      'edited "./sub/../a.txt": 1 replacement, on line 3.',
    ]);
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("ALPHA\nBETA\nGAMMA\n");
  });
});
