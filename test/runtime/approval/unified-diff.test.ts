/**
 * The approval preview's unified diff: exact for the cases a user reads (an edit with 3 lines of context,
 * a new file, a missing final newline, the one-line summary of a change too large to show line by line)
 * and, for any two texts the line diff follows, a patch that turns the old text into the new one
 * (checked by applying it with the `diff` package).
 */
import { applyPatch } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unifiedDiff } from "../../../src/runtime/approval/unified-diff.js";

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join("");

describe("unifiedDiff", () => {
  it("shows an edit with 3 lines of context, numbered as in the file", () => {
    const before = numbered(20);
    const after = before.replace("line 10\n", "LINE 10\n");
    expect(unifiedDiff("src/a.txt", before, after)).toBe(
      "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n-line 10\n+LINE 10\n line 11\n line 12\n line 13",
    );
  });

  it("shows a new file whole, and a missing final newline as diff(1) does", () => {
    expect(unifiedDiff("n.txt", undefined, "a\nb")).toBe("--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file");
    expect(unifiedDiff("n.txt", "a\nb", "a\nb\n")).toBe("--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b");
    expect(unifiedDiff("n.txt", "same\n", "same\n")).toBe("--- a/n.txt\n+++ b/n.txt");
  });

  it("sums up a rewrite too long to show line by line in one line", () => {
    const before = numbered(6000);
    const after = Array.from({ length: 5000 }, (_, i) => `other ${i}\n`).join("");
    expect(unifiedDiff("big.txt", before, after)).toBe("--- a/big.txt\n+++ b/big.txt\nwhole file replaced: 6000 lines → 5000 lines (changed in too many places to show line by line)");
  });

  it("names the replaced stretch when the start and the end of the file are kept", () => {
    const before = numbered(12_000);
    const lines = before.split("\n").slice(0, -1);
    const after = [...lines.slice(0, 10), ...Array.from({ length: 11_970 }, (_, i) => `other ${i}`), ...lines.slice(-20)].join("\n") + "\n";
    expect(unifiedDiff("big.txt", before, after)).toBe("--- a/big.txt\n+++ b/big.txt\nlines 11–11980 replaced: 11970 lines → 11970 lines (changed in too many places to show line by line)");
  });

  it("sums up a file changed in more places than the line diff follows, even when it is short", () => {
    const before = numbered(2000);
    const after = before.split("\n").map((line, i) => (i % 2 === 1 && line !== "" ? `${line} changed` : line)).join("\n");
    expect(unifiedDiff("f.txt", before, after)).toBe("--- a/f.txt\n+++ b/f.txt\nlines 2–2000 replaced: 1999 lines → 1999 lines (changed in too many places to show line by line)");
  });

  it("shows a change of up to 200 edits line by line, even scattered over a long stretch", () => {
    const before = numbered(5000);
    const after = before.split("\n").map((line, i) => (i % 50 === 25 ? `${line} changed` : line)).join("\n");
    const diff = unifiedDiff("s.txt", before, after);
    expect(diff.split("\n").filter((line) => line.startsWith("@@"))).toHaveLength(100);
    expect(diff.split("\n").slice(2, 5)).toEqual(["@@ -23,7 +23,7 @@", " line 23", " line 24"]);
    expect(applyPatch(before, diff)).toBe(after);
  });

  it("still shows a long stretch that is only added or only removed, line by line", () => {
    const kept = numbered(3);
    const added = Array.from({ length: 11_000 }, (_, i) => `new ${i}\n`).join("");
    const grown = unifiedDiff("g.txt", kept, kept + added);
    expect(grown.split("\n").slice(0, 7)).toEqual(["--- a/g.txt", "+++ b/g.txt", "@@ -1,3 +1,11003 @@", " line 1", " line 2", " line 3", "+new 0"]);
    expect(applyPatch(kept, grown)).toBe(kept + added);
    expect(applyPatch(kept + added, unifiedDiff("g.txt", kept + added, kept))).toBe(kept);
  });

  it("is, for any two texts, a patch that turns the old one into the new one, or the summary of a change too large", () => {
    const text = (maxLength: number) => fc.array(fc.constantFrom("a\n", "b\n", "c\r\n", "", "d"), { maxLength }).map((parts) => parts.join(""));
    const summary = /^(whole file|lines [0-9]+–[0-9]+) replaced: [0-9]+ lines? → [0-9]+ lines? \(changed in too many places to show line by line\)$/;
    fc.assert(
      fc.property(fc.oneof(fc.tuple(text(30), text(30)), fc.tuple(text(400), text(400))), fc.boolean(), ([before, after], isNew) => {
        const diff = unifiedDiff("f.txt", isNew ? undefined : before, after);
        const lines = diff.split("\n");
        if (lines.length === 3 && summary.test(lines[2]!)) expect(isNew).toBe(false);
        else expect(applyPatch(isNew ? "" : before, diff)).toBe(after);
      }),
      { numRuns: 300 },
    );
  });
});
