/**
 * The screen above an approval question: the call, then the diff's first 200 lines and a note counting
 * the rest, so a 1 MB file's preview never floods the terminal; colours only when wanted.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { approvalScreen, SHOWN_DIFF_LINES } from "../../src/cli/approval-prompt.js";

const call = { id: "call_1", type: "function" as const, function: { name: "write_file", arguments: '{"path":"a.txt","content":"x"}' } };
const preview = (count: number) => ["--- a/a.txt", "+++ b/a.txt", `@@ -0,0 +1,${count - 3} @@`, ...Array.from({ length: count - 3 }, (_, i) => `+line ${i + 1}`)].join("\n");

describe("approvalScreen", () => {
  it("shows a diff of 200 lines whole, without a note", () => {
    const screen = approvalScreen(call, preview(SHOWN_DIFF_LINES), false);
    expect(screen).toBe(`approval needed: write_file(${call.function.arguments})\n${preview(SHOWN_DIFF_LINES)}\n`);
  });

  it("cuts a longer diff after 200 lines and says how many are left out", () => {
    const lines = approvalScreen(call, preview(21_003), false).split("\n");
    expect(lines).toHaveLength(1 + SHOWN_DIFF_LINES + 1 + 1);
    expect(lines[SHOWN_DIFF_LINES]).toBe("+line 197");
    expect(lines[SHOWN_DIFF_LINES + 1]).toBe("… 20803 more lines of the diff not shown (21003 lines in all)");
  });

  it("counts the lines of any preview as its line breaks say, and shows the first of them as they are", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("+a", " b", "-c", "", "\\ No newline at end of file"), { maxLength: 450 }), (parts) => {
        const text = parts.join("\n");
        const all = text.split("\n");
        const lines = approvalScreen(call, text, false).split("\n").slice(1, -1);
        expect(lines.slice(0, SHOWN_DIFF_LINES)).toEqual(all.slice(0, SHOWN_DIFF_LINES));
        if (all.length > SHOWN_DIFF_LINES) expect(lines[SHOWN_DIFF_LINES]).toBe(`… ${all.length - SHOWN_DIFF_LINES} more lines of the diff not shown (${all.length} lines in all)`);
        else expect(lines).toHaveLength(all.length);
      }),
    );
  });

  it("colours additions green, removals red and hunk headers cyan when colours are wanted", () => {
    expect(approvalScreen(call, "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new", true).split("\n").slice(1)).toEqual([
      "\u001b[1m--- a/a.txt\u001b[0m", "\u001b[1m+++ b/a.txt\u001b[0m", "\u001b[36m@@ -1 +1 @@\u001b[0m", "\u001b[31m-old\u001b[0m", "\u001b[32m+new\u001b[0m", "",
    ]);
  });
});
