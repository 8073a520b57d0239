/**
 * The approval preview's unified diff: exact for the cases a user reads (an edit with 3 lines of context,
 * a new file, a missing final newline) and, for any two texts, a patch that turns the old text into the
 * new one (checked by applying it with the `diff` package).
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

  it("shows a long rewrite as the stretch removed and added", () => {
    const before = numbered(6000);
    const after = Array.from({ length: 6000 }, (_, i) => `other ${i}\n`).join("");
    const diff = unifiedDiff("big.txt", before, after);
    expect(diff.split("\n").slice(0, 4)).toEqual(["--- a/big.txt", "+++ b/big.txt", "@@ -1,6000 +1,6000 @@", "-line 1"]);
    expect(applyPatch(before, diff)).toBe(after);
  });

  it("is a patch that turns any old text into the new one", () => {
    const text = fc.array(fc.constantFrom("a\n", "b\n", "c\r\n", "", "d"), { maxLength: 30 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, text, fc.boolean(), (before, after, isNew) => {
        const diff = unifiedDiff("f.txt", isNew ? undefined : before, after);
        expect(applyPatch(isNew ? "" : before, diff)).toBe(after);
      }),
      { numRuns: 300 },
    );
  });
});
