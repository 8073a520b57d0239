/**
 * The line `npm run agent` and `npm run mcp` print for a bug of their own: name and message, no stack, the
 * key masked, and no control character that could drive the terminal.
 */
import { describe, expect, it } from "vitest";
import { internalErrorLine } from "../../src/cli/internal-error-line.js";
import { SENTINEL_API_KEY } from "../support/sentinel-key.js";

describe("the internal-error line", () => {
  it("escapes control characters in the message as progress does, keeps newlines, and prints no stack", () => {
    const error = new TypeError("bad \u001b]0;pwned\u0007 title, \u001b[2J cleared\r and a second\nline");
    expect(internalErrorLine(error, "")).toBe(
      "internal error (a bug in sigloop, please report it): TypeError: bad \\x1b]0;pwned\\x07 title, \\x1b[2J cleared\\x0d and a second\nline\n",
    );
  });

  it("masks the API key and says what a thrown non-error was", () => {
    const line = internalErrorLine(new Error(`request with ${SENTINEL_API_KEY} failed`), SENTINEL_API_KEY);
    expect(line).not.toContain(SENTINEL_API_KEY);
    expect(line).toMatch(/^internal error \(a bug in sigloop, please report it\): Error: request with .* failed\n$/);
    expect(internalErrorLine("\u0007ring", "")).toBe("internal error (a bug in sigloop, please report it): \\x07ring\n");
  });
});
