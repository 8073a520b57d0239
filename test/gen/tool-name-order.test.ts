import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareToolNames } from "../../src/gen/reflect/tool-name-order.js";

/**
 * A file's tools are built in the order `localeCompare` gave their names before (English, the Unicode
 * root collation): the checker creates types in that order, which the schemas of unions can show.
 * ICU is the oracle.
 */
const nameChar = fc.constantFrom(..."_-09aAbBzZ");
const toolName = fc.array(nameChar, { minLength: 1, maxLength: 8 }).map((chars) => chars.join(""));
const anyToolName = fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/);

describe("the order of a file's tools", () => {
  it("is the order localeCompare gives tool names in English, for names alike but for case, punctuation and length", () => {
    fc.assert(
      fc.property(toolName, toolName, (a, b) => {
        expect(compareToolNames(a, b)).toBe(Math.sign(a.localeCompare(b, "en")));
      }),
      { numRuns: 20_000, seed: 20_261_201 },
    );
  });

  it("is the order localeCompare gives any two tool names in English", () => {
    fc.assert(
      fc.property(anyToolName, anyToolName, (a, b) => {
        expect(compareToolNames(a, b)).toBe(Math.sign(a.localeCompare(b, "en")));
      }),
      { numRuns: 5_000, seed: 20_261_201 },
    );
  });

  it("sorts a list as localeCompare did: punctuation, digits, letters, shorter names first, lower case first", () => {
    const names = ["AB", "ab_", "tool-2", "Ab", "a", "tool_10", "aB", "_x", "A", "ab", "tool_2", "-x", "0x", "a_b", "a-b", "a0", "Z", "z"];
    expect([...names].sort(compareToolNames)).toEqual([
      "_x", "-x", "0x", "a", "A", "a_b", "a-b", "a0", "ab", "aB", "Ab", "AB", "ab_", "tool_10", "tool_2", "tool-2", "z", "Z",
    ]);
    expect([...names].sort(compareToolNames)).toEqual([...names].sort((a, b) => a.localeCompare(b, "en")));
  });
});
