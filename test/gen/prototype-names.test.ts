/** gen refuses a parameter or member named `__proto__` with a compiler-style error (it cannot round-trip). */
import { describe, expect, it } from "vitest";
import { generateTool } from "./support.js";

describe("parameters and members named __proto__", () => {
  it("a positional parameter named __proto__ is an error naming it", () => {
    const { generation, messages } = generateTool("/** P. @param __proto__ A. */\nexport function p(__proto__: string): void {}\n");
    expect(generation.file).toBeUndefined();
    expect(messages).toEqual([
      'tools/t.ts:2:19 error: parameter "__proto__" of tool "p" is named __proto__, which JSON Schema and JavaScript objects cannot carry as a member; rename it',
    ]);
  });

  it("a member named __proto__, nested, is an error at the member", () => {
    const { generation, messages } = generateTool(
      '/** P. @param opts Options. */\nexport function p(opts: { model: string; inner: { "__proto__"?: string }[] }): void {}\n',
    );
    expect(generation.file).toBeUndefined();
    expect(messages).toEqual([
      'tools/t.ts:2:51 error: parameter "opts" of tool "p" has a member named __proto__ (opts.inner[].__proto__), which JSON Schema and JavaScript objects cannot carry as a member; rename it',
    ]);
  });

  it("members named like other Object.prototype members are fine", () => {
    const { generation, messages } = generateTool("/** P. @param value V. @param toString T. */\nexport function p(value: number, toString?: string, opts?: { constructor?: string }): void {}\n");
    expect(messages.filter((line) => line.includes("error"))).toEqual([]);
    expect(generation.file).toBeDefined();
  });
});
