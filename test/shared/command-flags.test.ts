import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flagMeant, helpRequested, unknownFlag, type FlagTable } from "../../src/shared/command-flags.js";

const TABLE: FlagTable = { "--model": "value", "--max-turns": "value", "--strict": "switch", "--no-strict": "switch", "--out": "value" };

describe("the flag meant", () => {
  it("is the known flag within two edits: swaps, missing, extra and wrong letters", () => {
    expect(flagMeant("--modle", TABLE)).toBe("--model");
    expect(flagMeant("--mdel", TABLE)).toBe("--model");
    expect(flagMeant("--models", TABLE)).toBe("--model");
    expect(flagMeant("--max-turn", TABLE)).toBe("--max-turns");
    expect(flagMeant("--strcit", TABLE)).toBe("--strict");
    expect(flagMeant("--nostrict", TABLE)).toBe("--no-strict");
  });

  it("is none three edits away, or for a short name that would match anything", () => {
    expect(flagMeant("--verbose", TABLE)).toBeUndefined();
    expect(flagMeant("--moxxxl", TABLE)).toBeUndefined();
    expect(flagMeant("--x", TABLE)).toBeUndefined();
    expect(unknownFlag("--verbose", TABLE)).toEqual({ message: "unknown flag --verbose" });
    expect(unknownFlag("--modle", TABLE)).toEqual({ message: "unknown flag --modle (did you mean --model?)", meant: "--model" });
  });

  it("is a flag of the table or nothing, for any text (a 100 kB argument included)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (name) => {
        const meant = flagMeant(name, TABLE);
        expect(meant === undefined || Object.hasOwn(TABLE, meant)).toBe(true);
      }),
    );
    expect(flagMeant(`--${"m".repeat(100_000)}`, TABLE)).toBeUndefined();
  });
});

describe("help", () => {
  it("is asked for by --help or -h anywhere before --", () => {
    expect(helpRequested(["a", "--model", "x", "-h"])).toBe(true);
    expect(helpRequested(["--help"])).toBe(true);
    expect(helpRequested(["--", "-h"])).toBe(false);
    expect(helpRequested(["--helpful", "-hx"])).toBe(false);
  });
});
