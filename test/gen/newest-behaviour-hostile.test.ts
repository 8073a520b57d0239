/**
 * Hostile cases for gen's newest behaviour: a nested pattern default below a union goes only to the
 * branches where it is of the member's type; a default TypeScript's structural typing lets through
 * (`object = []`, a member of another union branch) is still checked against its own schema; the
 * warning for a nested pattern default sits at its initializer; a number no JSON number can hold gives
 * no `default` (it was written as null).
 */
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/shared/schemas-file.js";
import { generateTool, parametersOf } from "./support.js";

function propertyOf(source: string, tool: string, name: string): { schema: JsonSchema; messages: string[] } {
  const { generation, messages } = generateTool(source);
  return { schema: (parametersOf(generation.file!, tool).properties as Record<string, JsonSchema>)[name]!, messages };
}

describe("hostile cases of the newest gen behaviour", () => {
  it("puts a nested pattern default below a union only on the branches whose member has its type", () => {
    const { schema, messages } = propertyOf(
      '/** B. @param s S. */\nexport function b({ s: { v = 1 } }: { s: { k: "a"; v?: string } | { k: "b"; v?: number } }): string { return String(v); }\n',
      "b",
      "s",
    );
    expect(messages).toEqual([]);
    expect(schema).toEqual({
      description: "S.",
      anyOf: [
        { type: "object", properties: { k: { type: "string", const: "a" }, v: { type: "string" } }, additionalProperties: false, required: ["k"] },
        { type: "object", properties: { k: { type: "string", const: "b" }, v: { type: "number", default: 1 } }, additionalProperties: false, required: ["k"] },
      ],
    });
  });

  it("warns about defaults the compiler accepts structurally but their schemas refuse", () => {
    const { messages } = generateTool([
      "/** Obj. @param o O. */",
      "export function obj(o: object = []): void {}",
      "/** Union. @param u U. */",
      "export function union(u: { a: number } | { b: number } = { a: 1, b: 2 }): void {}",
      "/** Nested. @param o O. */",
      "export function nested({ o: { w = { a: 1, b: 2 } } = {} }: { o?: { w?: { a: number } | { b: number } } }): void {}",
      "/** Length. @param l L. */",
      'export function length(l: { length?: number } = "ab"): void {}',
      "",
    ].join("\n"));
    expect(messages.filter((line) => line.includes("does not satisfy"))).toEqual([
      'tools/t.ts:2:33 warning: the default [] of parameter "o" of tool "obj" does not satisfy its own schema: must be object',
      'tools/t.ts:4:58 warning: the default {"a":1,"b":2} of parameter "u" of tool "union" does not satisfy its own schema: must NOT have additional properties',
      'tools/t.ts:6:35 warning: the default {"a":1,"b":2} of member "o.w" of tool "nested" does not satisfy its own schema: must NOT have additional properties',
      'tools/t.ts:8:49 warning: the default "ab" of parameter "l" of tool "length" does not satisfy its own schema: must be object',
    ]);
  });

  it("places the warning for a nested pattern default at its initializer", () => {
    const { messages } = generateTool([
      "/** Min. @param opts O. */",
      "export function min({ opts: { n = 0 } = {} }: { opts?: { /** N. @minimum 1 */ n?: number } }): number { return n; }",
      "",
    ].join("\n"));
    expect(messages).toEqual(['tools/t.ts:2:35 warning: the default 0 of member "opts.n" of tool "min" does not satisfy its own schema: must be >= 1']);
  });

  it("writes no default for a number too large for JSON, at the top or nested", () => {
    const { generation, messages } = generateTool("/** Inf. @param o O. */\nexport function inf({ o: { m = -1e999 } = {} }: { o?: { m?: number } }): number { return m; }\n");
    expect((parametersOf(generation.file!, "inf").properties as Record<string, JsonSchema>).o).toEqual({
      type: "object", description: "O.", properties: { m: { type: "number" } }, additionalProperties: false, default: {},
    });
    expect(propertyOf("/** Inf. @param n N. */\nexport function inf(n = 1e999): number { return n; }\n", "inf", "n")).toEqual({ schema: { type: "number", description: "N." }, messages: [] });
  });
});
