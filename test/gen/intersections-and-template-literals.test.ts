import { describe, expect, it } from "vitest";
import { compileStrict, generateTool, parametersOf } from "./support.js";

describe("intersections", () => {
  it("a branded or intersected primitive is the primitive's schema", () => {
    const { generation, messages: shown } = generateTool([
      "/** Brands. @param n A number. @param id An id. @param flag A flag. @param word A word. */",
      'export function brands(n: number & {}, id: string & { readonly __brand: "Id" }, flag: boolean & { __b: 1 }, word: "a" & { __b: 1 }): void {}',
      "",
    ].join("\n"));
    expect(shown).toEqual([]);
    const parameters = parametersOf(generation.file!, "brands");
    expect(parameters).toEqual({
      type: "object",
      properties: {
        n: { type: "number", description: "A number." },
        id: { type: "string", description: "An id." },
        flag: { type: "boolean", description: "A flag." },
        word: { type: "string", description: "A word.", const: "a" },
      },
      additionalProperties: false,
      required: ["n", "id", "flag", "word"],
    });
    const { validate, logged } = compileStrict(parameters);
    expect(logged).toEqual([]);
    expect(validate({ n: 1, id: "x", flag: true, word: "a" })).toBe(true);
  });

  it("an intersection with a string index signature stays open, with the index value type", () => {
    const { generation, messages: shown } = generateTool([
      "/** Open. @param f Fields. */",
      "export function open(f: { a: string } & Record<string, string>): void {}",
      "",
    ].join("\n"));
    expect(shown).toEqual([
      'tools/t.ts:2:22 warning: tool "open" is offered with strict: false in strict mode: parameter "f" is an open object (a Record or an index signature), whose keys strict mode needs named in advance; the model\'s arguments are still validated',
    ]);
    const parameters = parametersOf(generation.file!, "open");
    expect(parameters.properties.f).toEqual({
      type: "object", description: "Fields.", properties: { a: { type: "string" } }, additionalProperties: { type: "string" }, required: ["a"],
    });
    const { validate } = compileStrict(parameters);
    expect(validate({ f: { a: "x", b: "y" } })).toBe(true);
    expect(validate({ f: { a: "x", b: 1 } })).toBe(false);
    expect(validate({ f: { b: "y" } })).toBe(false);
  });
});

describe("template literal types", () => {
  it("${number} and ${string} match exactly what TypeScript accepts", () => {
    const { generation, messages: shown } = generateTool([
      "/** Ids. @param id An id. @param key A key. @param either Either. */",
      "export function ids(id: `id-${number}`, key: `k.${string}/v`, either: `a-${number}` | `b(${string})`): void {}",
      "",
    ].join("\n"));
    expect(shown).toEqual([]);
    const parameters = parametersOf(generation.file!, "ids");
    expect(parameters.properties.id).toEqual({ type: "string", description: "An id.", pattern: String.raw`^id--?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$` });
    expect(parameters.properties.key).toEqual({ type: "string", description: "A key.", pattern: String.raw`^k\.[\s\S]*\/v$` });
    const { validate, logged } = compileStrict(parameters);
    expect(logged).toEqual([]);
    const call = (id: string) => validate({ id, key: "k.x\ny/v", either: "a-1" });
    for (const good of ["id-1", "id--1", "id-1.5", "id-.5", "id-1e-7", "id-0"]) expect(call(good), good).toBe(true);
    for (const bad of ["id-", "id-x", "id-1.2.3", "xid-1", "id-1 "]) expect(call(bad), bad).toBe(false);
    expect(validate({ id: "id-1", key: "k.x/w", either: "a-1" })).toBe(false);
    expect(validate({ id: "id-1", key: "k./v", either: "b(z)" })).toBe(true);
    expect(validate({ id: "id-1", key: "k./v", either: "b-1" })).toBe(false);
  });

  it("holes that would compete for the same text are written so that a backtracking engine stays linear", () => {
    const { generation, messages: shown } = generateTool([
      "/** Keys. @param key A key. @param pair A pair. @param glued Glued. */",
      "export function keys(key: `${string}:${string}:${number}`, pair: `${string}-${string}-${string}`, glued: `${string}ab${string}`): void {}",
      "",
    ].join("\n"));
    expect(shown).toEqual([]);
    const parameters = parametersOf(generation.file!, "keys");
    expect(parameters.properties.key).toEqual({ type: "string", description: "A key.", pattern: String.raw`^[^:]*:[\s\S]*:-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$` });
    expect(parameters.properties.pair).toMatchObject({ pattern: String.raw`^[^-]*-[^-]*-[\s\S]*$` });
    expect(parameters.properties.glued).toMatchObject({ pattern: String.raw`^[\s\S]*ab[\s\S]*$` });
    const { validate } = compileStrict(parameters);
    const key = (text: string) => validate({ key: text, pair: "a-b-c-d", glued: "ab" });
    for (const good of ["a:b:1", "::1", "a:b:c:-2.5e3", "x:y::1."]) expect(key(good), good).toBe(true);
    for (const bad of ["a:1", "a:b:", "a:b:1x", "a:b:c"]) expect(key(bad), bad).toBe(false);
    // On V8's backtracking engine the old pattern took 1.7 s for 2 KB of this; linear now, so 64 KB is instant.
    const hostile = `:${"1".repeat(65_536)}x`;
    const started = performance.now();
    expect(new RegExp(parameters.properties.key!.pattern as string, "u").test(hostile)).toBe(false);
    expect(new RegExp(parameters.properties.key!.pattern as string, "u").test(":".repeat(65_536))).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("a placeholder no pattern expresses exactly is an error", () => {
    const { messages: shown } = generateTool("/** Shout. @param word A word. */\nexport function shout(word: `x-${Uppercase<string>}`): void {}\n");
    expect(shown).toEqual([
      'tools/t.ts:2:1 error: typescript-json-schema could not describe the parameters of tool "shout": the template literal type `x-${Uppercase<string>}` has a placeholder ${Uppercase<string>} that no pattern expresses exactly; use ${string} or ${number} there',
    ]);
  });
});
