/**
 * gen refuses a tool whose schema would pass the documented size (a small recursive generic expands
 * exponentially: depth 14 used to write 55.6 MB, depth 18 ran for minutes) with a compiler-style error
 * naming the tool and the parameter, within seconds.
 */
import { describe, expect, it } from "vitest";
import { generateTool } from "./support.js";

const exponential = (depth: number) =>
  [
    `type Obj<N extends unknown[]> = N["length"] extends ${depth} ? { leaf: string } : { a: Obj<[...N, 0]>; b: Obj<[...N, 0]> };`,
    "/** Takes a tree. @param small A flag. @param tree The tree. */",
    "export function grow(small: boolean, tree: Obj<[]>): void {}",
    "",
  ].join("\n");

describe("schema size limits", () => {
  it.each([14, 18])("a recursive generic of depth %i is refused at the parameter, within seconds", (depth) => {
    const started = performance.now();
    const { generation, messages } = generateTool(exponential(depth));
    expect(generation.file).toBeUndefined();
    expect(messages).toEqual([
      'tools/t.ts:3:38 error: parameter "tree" of tool "grow" cannot be described: its schema needs more than 20000 type expansions (a recursive generic type that grows with every level?); give it a type of bounded size',
    ]);
    expect(performance.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it("a small depth is described as before", () => {
    const { generation, messages } = generateTool(exponential(3));
    expect(messages).toEqual([]);
    expect(generation.file).toBeDefined();
  });
});
