/**
 * The file tools read a file's current text sized from its length, reading on when it grew after it
 * was looked at: the whole text still arrives, and a file grown past the limit is still too large.
 */
import { appendFileSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readCurrentText } from "../../src/runtime/workspace/file-change.js";
import { MAX_TEXT_BYTES } from "../../src/runtime/workspace/text-edit.js";
import { confineToWorkspace } from "../../src/runtime/workspace/workspace.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function workspace(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "sigloop-current-text-")));
  dirs.push(dir);
  return dir;
}

describe("readCurrentText", () => {
  it("reads the whole text of a file that grew after it was looked at", async () => {
    const root = workspace();
    writeFileSync(path.join(root, "f.txt"), "first line\n");
    const confined = await confineToWorkspace(root, "f.txt");
    const more = "more text\n".repeat(50_000);
    appendFileSync(path.join(root, "f.txt"), more);
    expect(await readCurrentText(confined, "f.txt")).toEqual({ text: `first line\n${more}` });
  });

  it("reads an empty file as empty text", async () => {
    const root = workspace();
    writeFileSync(path.join(root, "e.txt"), "");
    expect(await readCurrentText(await confineToWorkspace(root, "e.txt"), "e.txt")).toEqual({ text: "" });
  });

  it("finds a file that grew past the limit after it was looked at too large", async () => {
    const root = workspace();
    writeFileSync(path.join(root, "g.txt"), "x\n");
    const confined = await confineToWorkspace(root, "g.txt");
    appendFileSync(path.join(root, "g.txt"), Buffer.alloc(MAX_TEXT_BYTES, 0x61));
    expect(await readCurrentText(confined, "g.txt")).toEqual({ tooLarge: MAX_TEXT_BYTES + 1 });
  });
});
