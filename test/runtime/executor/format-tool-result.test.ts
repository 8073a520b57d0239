import { describe, expect, test } from "vitest";
import { capContent, renderReturnValue, truncationNote } from "../../../src/runtime/execution/format-tool-result.js";
import { timeoutMessage } from "../../../src/runtime/execution/tool-messages.js";

describe("capContent", () => {
  test("text within the cap is unchanged", () => {
    expect(capContent("abc", 3)).toBe("abc");
  });

  test("a surrogate pair at the cut is kept whole or dropped whole, never split", () => {
    expect(capContent("ab😀cd", 3)).toBe(`ab${truncationNote(6, 2)}`);
    expect(capContent("ab😀cd", 4)).toBe(`ab😀${truncationNote(6, 4)}`);
  });
});

describe("renderReturnValue", () => {
  test("numbers, booleans, null and arrays as JSON; bigints as JSON strings of their digits; functions as no output", () => {
    expect([0, true, null, [1, "a"], 12n, () => 1].map(renderReturnValue)).toEqual(["0", "true", "null", '[1,"a"]', '"12"', "(no output)"]);
  });
});

test("the default timeout reads as 60 s", () => {
  expect(timeoutMessage("slow", 60_000)).toBe(
    "The tool slow timed out: it did not finish within 60 s, so it was stopped and has no result. Try a smaller task or another approach.",
  );
});
