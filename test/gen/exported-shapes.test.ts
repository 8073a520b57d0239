import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { compileStrict, generateTool, parametersOf } from "./support.js";

const POINT = [
  "export class Point {",
  "  /** Across. */",
  "  x = 0;",
  "  readonly y: number = 0;",
  "  private secret = \"s\";",
  "  protected level = 1;",
  "  #hash = 2;",
  "  static count = 0;",
  "  constructor(public label = \"p\", private owner = \"me\") {}",
  "  get norm(): number { return this.x; }",
  "  set norm(value: number) { this.x = value; }",
  "  get name(): string { return this.label; }",
  "  private cached(): number { return this.#hash; }",
  "}",
].join("\n");

describe("a parameter whose type is a class", () => {
  const { generation, messages } = generateTool([
    POINT,
    "/**",
    " * Moves a point.",
    " * @param p The point.",
    " */",
    "export function move(p: Point): void {}",
    "/**",
    " * Moves by members.",
    " * @param p.x X. @param p.y Y. @param p.label L. @param p.norm N. @param p.name Nm.",
    " */",
    "export function spread({ x, y }: Point): void {}",
    "",
  ].join("\n"));
  const file = generation.file!;

  it("lists only its public members: no private, protected or #private field, no method; getters as data; no initializer as a default", () => {
    expect(parametersOf(file, "move").properties.p).toEqual({
      type: "object",
      description: "The point.",
      properties: {
        x: { type: "number", description: "Across." },
        y: { type: "number" },
        label: { type: "string" },
        norm: { type: "number" },
        name: { type: "string" },
      },
      additionalProperties: false,
      required: ["label", "name", "norm", "x", "y"],
    });
    for (const tool of file.tools) expect(compileStrict(tool.function.parameters).logged).toEqual([]);
    expect(file.strictTools!.every((tool) => tool.function.strict === true)).toBe(true);
  });

  it("destructured, has the same public members as its properties, and no warning names a hidden one", () => {
    const parameters = parametersOf(file, "spread");
    expect(Object.keys(parameters.properties)).toEqual(["x", "y", "label", "norm", "name"]);
    expect(parameters.required).toEqual(["x", "y", "label", "norm", "name"]);
    expect(messages).toEqual([]);
  });

  it("refuses an argument that sets a hidden member, whatever else it holds", () => {
    const { validate } = compileStrict(parametersOf(file, "move"));
    const hiddenKey = fc.constantFrom("secret", "level", "#hash", "owner", "cached");
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string(), hiddenKey, fc.jsonValue(), (x, label, key, value) => {
      const point = { x, y: x, label, norm: x, name: label };
      expect(validate({ p: point })).toBe(true);
      expect(validate({ p: { ...point, [key]: value } })).toBe(false);
    }));
  });

  it("with a public method is still an error; one with only a private method is a tool", () => {
    const withMethod = generateTool([
      "export class Box { w = 1; area(): number { return this.w; } }",
      "/** Boxes. @param b A box. */",
      "export function box(b: Box): void {}",
      "",
    ].join("\n"));
    expect(withMethod.messages).toEqual(['tools/t.ts:3:21 error: parameter "b" of tool "box" has type "Box", which JSON cannot carry']);
    const privateOnly = generateTool([
      "export class Box { w = 1; private area(): number { return this.w; } }",
      "/** Boxes. @param b A box. */",
      "export function box(b: Box): void {}",
      "",
    ].join("\n"));
    expect(privateOnly.messages).toEqual([]);
    expect(parametersOf(privateOnly.generation.file!, "box").properties.b).toEqual({
      type: "object", description: "A box.", properties: { w: { type: "number" } }, additionalProperties: false, required: ["w"],
    });
  });
});

describe("a class field written with an initializer", () => {
  const { generation, messages } = generateTool([
    "export class Options {",
    "  /** Attempts. @minimum 1 */",
    "  retries: number = 0;",
    "  /** Speed. */",
    "  mode = \"fast\";",
    "  /** Pause in ms. @default 100 */",
    "  pause = 50;",
    "  /** Depth. @default 2 */",
    "  depth!: number;",
    "  constructor(/** Name. */ public label = \"run\") {}",
    "}",
    "/** Runs. @param o The options. */",
    "export function run(o: Options): void {}",
    "/** Runs, destructured. */",
    "export function spread({ retries, mode, pause, depth, label }: Options): void {}",
    "",
  ].join("\n"));
  const file = generation.file!;
  const members = {
    retries: { type: "number", description: "Attempts.", minimum: 1 },
    mode: { type: "string", description: "Speed." },
    pause: { type: "number", description: "Pause in ms.", default: 100 },
    depth: { type: "number", description: "Depth.", default: 2 },
    label: { type: "string", description: "Name." },
  };

  it("stays required with no default, as the argument is never constructed; a @default tag on it stays", () => {
    expect(parametersOf(file, "run").properties.o).toEqual({
      type: "object", description: "The options.", properties: members, additionalProperties: false, required: ["depth", "label", "mode", "pause", "retries"],
    });
    expect(parametersOf(file, "spread")).toEqual({
      type: "object", properties: members, additionalProperties: false, required: ["retries", "mode", "pause", "depth", "label"],
    });
  });

  it("is no default to check against its schema, and strict mode says no default for it", () => {
    expect(messages).toEqual([]);
    const strict = file.strictTools!.find((tool) => tool.function.name === "run")!.function.parameters.properties.o as { properties: Record<string, { description?: string }> };
    expect(Object.fromEntries(Object.entries(strict.properties).map(([name, member]) => [name, member.description]))).toEqual({
      retries: "Attempts.", mode: "Speed.", pause: "Pause in ms. Default: 100.", depth: "Depth. Default: 2.", label: "Name.",
    });
  });

  it("is refused when a model leaves it out, whichever members it sends", () => {
    const { validate } = compileStrict(parametersOf(file, "run"));
    const all = { retries: 1, mode: "slow", pause: 0, depth: 1, label: "x" };
    fc.assert(fc.property(fc.subarray(Object.keys(all), { minLength: 1 }), (left) => {
      const sent = Object.fromEntries(Object.entries(all).filter(([name]) => !left.includes(name)));
      expect(validate({ o: sent })).toBe(false);
    }));
    expect(validate({ o: all })).toBe(true);
  });
});

describe("a parameter typed as an object constant's type (typeof)", () => {
  const { generation, messages } = generateTool([
    "export const SETTINGS = { mode: \"fast\", nested: { level: 3 }, flag: true };",
    "/** Runs. @param s The settings. */",
    "export function run(s: typeof SETTINGS): void {}",
    "",
  ].join("\n"));
  const file = generation.file!;

  it("has every member required with no default at any depth: the model's argument is never that literal", () => {
    expect(messages).toEqual([]);
    expect(parametersOf(file, "run").properties.s).toEqual({
      type: "object",
      description: "The settings.",
      properties: {
        mode: { type: "string" },
        nested: { type: "object", properties: { level: { type: "number" } }, additionalProperties: false, required: ["level"] },
        flag: { type: "boolean" },
      },
      additionalProperties: false,
      required: ["flag", "mode", "nested"],
    });
  });

  it("is refused when a model leaves a member out", () => {
    const { validate } = compileStrict(parametersOf(file, "run"));
    expect(validate({ s: { mode: "slow", nested: { level: 1 }, flag: false } })).toBe(true);
    expect(validate({ s: { mode: "slow", nested: {}, flag: false } })).toBe(false);
    expect(validate({ s: { nested: { level: 1 }, flag: false } })).toBe(false);
  });
});

describe("a return type that is a class", () => {
  it("with hidden members or accessors gets no output schema and a warning saying why; one of public fields keeps its schema", () => {
    const { generation, messages } = generateTool([
      POINT,
      "export class Plain { a = 1; b?: string; }",
      "export class Shown { get size(): number { return 1; } }",
      "/** Makes a point. */",
      "export function make(): Point { return new Point(); }",
      "/** Makes a plain one. */",
      "export function plain(): Plain { return new Plain(); }",
      "/** Makes a shown one. */",
      "export function shown(): Shown { return new Shown(); }",
      "",
    ].join("\n"));
    expect(messages).toEqual([
      'tools/t.ts:18:1 warning: tool "make" gets no output schema: its return type has class "Point", whose result.secret is private, protected or #private, and an instance\'s JSON holds every own field (private ones too) but no accessor or #private field; return an interface or object type instead; MCP clients receive its result as text only',
      'tools/t.ts:22:1 warning: tool "shown" gets no output schema: its return type has class "Shown", whose result.size is a getter or setter, and an instance\'s JSON holds every own field (private ones too) but no accessor or #private field; return an interface or object type instead; MCP clients receive its result as text only',
    ]);
    expect(generation.file!.outputs).toEqual({
      plain: { type: "object", properties: { a: { type: "number" }, b: { type: "string" } }, additionalProperties: false, required: ["a"] },
    });
  });
});

describe("a function exported under another name", () => {
  const { generation, messages } = generateTool([
    "/**",
    " * Doubles a number.",
    " * @param x The number.",
    " */",
    "function inner(x: number): number { return 2 * x; }",
    "/** Echoes. @param s The text. */",
    "const echo = (s: string): string => s;",
    "export const doubled = inner;",
    "export { inner as twice };",
    "/**",
    " * Repeats a text.",
    " * @param s What to repeat.",
    " */",
    "export const repeat = echo;",
    "export const again = repeat;",
    "",
  ].join("\n"));
  const file = generation.file!;

  it("by `export const name = fn` is a tool under that name, described by the function's JSDoc", () => {
    expect(messages).toEqual([]);
    const doubled = file.tools.find((tool) => tool.function.name === "doubled")!.function;
    expect(doubled).toEqual({
      name: "doubled",
      description: "Doubles a number.",
      parameters: { type: "object", properties: { x: { type: "number", description: "The number." } }, additionalProperties: false, required: ["x"] },
    });
    expect(file.tools.find((tool) => tool.function.name === "twice")!.function.parameters).toEqual(doubled.parameters);
    expect(file.bindings.map((binding) => [binding.name, binding.exportName, binding.call])).toEqual([
      ["again", "again", { kind: "positional", params: ["s"] }],
      ["doubled", "doubled", { kind: "positional", params: ["x"] }],
      ["repeat", "repeat", { kind: "positional", params: ["s"] }],
      ["twice", "twice", { kind: "positional", params: ["x"] }],
    ]);
  });

  it("with a JSDoc of its own is described by that JSDoc; through another such const, by the function's", () => {
    const description = (name: string) => file.tools.find((tool) => tool.function.name === name)!.function;
    expect(description("repeat").description).toBe("Repeats a text.");
    expect(description("repeat").parameters.properties.s).toEqual({ type: "string", description: "What to repeat." });
    expect(description("again").description).toBe("Echoes.");
    expect(description("again").parameters.properties.s).toEqual({ type: "string", description: "The text." });
  });

  it("through parentheses, as, <T>, satisfies or !, in any nesting, is the same tool as the plain alias", () => {
    const wrappers: ((held: string) => string)[] = [
      (held) => `(${held})`,
      (held) => `${held} as Fn`,
      (held) => `<Fn>${held}`,
      (held) => `${held} satisfies Fn`,
      (held) => (/^\w+$/.test(held) ? `${held}!` : `(${held})!`),
    ];
    const wrapped = wrappers.flatMap((outer, i) => [outer("inner"), ...wrappers.map((inner) => outer(inner("inner")))].map((held, j) => [`w${i}_${j}`, held] as const));
    const { generation: read, messages: said } = generateTool([
      "/**",
      " * Doubles a number.",
      " * @param x The number.",
      " */",
      "function inner(x: number): number { return 2 * x; }",
      "type Fn = (x: number) => number;",
      "export const plain = inner;",
      ...wrapped.map(([name, held]) => `export const ${name} = ${held};`),
      "/** Twice, described here. @param x What to double. */",
      "export const described = inner as typeof inner;",
      "/** Halves. @param y The number. */",
      "export const halved = ((y: number): number => y / 2) satisfies Fn;",
      "",
    ].join("\n"));
    expect(said).toEqual([]);
    const tool = (name: string) => read.file!.tools.find((entry) => entry.function.name === name)?.function;
    for (const [name] of wrapped) expect(tool(name)).toEqual({ ...tool("plain")!, name });
    expect(tool("described")).toEqual({
      name: "described", description: "Twice, described here.",
      parameters: { type: "object", properties: { x: { type: "number", description: "What to double." } }, additionalProperties: false, required: ["x"] },
    });
    expect(tool("halved")).toEqual({
      name: "halved", description: "Halves.",
      parameters: { type: "object", properties: { y: { type: "number", description: "The number." } }, additionalProperties: false, required: ["y"] },
    });
    expect(read.file!.bindings.filter((binding) => binding.name === "w1_0" || binding.name === "halved").map((binding) => [binding.exportName, binding.call])).toEqual([
      ["halved", { kind: "positional", params: ["y"] }],
      ["w1_0", { kind: "positional", params: ["x"] }],
    ]);
  });

  it("through parentheses, as or ! to what gen cannot read keeps its warning at the const", () => {
    const { generation: unread, messages: said } = generateTool([
      "/** Doubles. @param x X. */",
      "function inner(x: number): number { return 2 * x; }",
      "type Fn = (x: number) => number;",
      "const settings = { depth: 2 };",
      "export const bound = (inner.bind(null)) as Fn;",
      "export const cast = settings as unknown as Fn;",
      "export const LIMIT = (5 as number)!;",
      "",
    ].join("\n"));
    expect(said).toEqual([
      'tools/t.ts:5:14 warning: "bound" is exported as a function value ((inner.bind(null)) as Fn), whose parameters and JSDoc gen cannot read, so it is not a tool; declare it as a function here: export function bound(…) { … } or export const bound = (…) => …, calling what it holds',
      'tools/t.ts:6:14 warning: "cast" is exported as a function value (settings as unknown as Fn), whose parameters and JSDoc gen cannot read, so it is not a tool; declare it as a function here: export function cast(…) { … } or export const cast = (…) => …, calling what it holds',
    ]);
    expect(unread.file!.tools).toEqual([]);
  });

  it("by a const gen cannot read as a function is a warning naming the fix, while other consts say nothing", () => {
    const { generation: unread, messages: said } = generateTool([
      "/** Doubles. @param x X. */",
      "function inner(x: number): number { return 2 * x; }",
      "const wrap = <F>(f: F): F => f;",
      "export const bound = inner.bind(null);",
      "export const wrapped = wrap((value: string) => value.length + 1000000000);",
      "export const LIMIT = 5;",
      "export const settings = { depth: 2 };",
      "export const Klass = class { a = 1; };",
      "",
    ].join("\n"));
    expect(said).toEqual([
      'tools/t.ts:4:14 warning: "bound" is exported as a function value (inner.bind(null)), whose parameters and JSDoc gen cannot read, so it is not a tool; declare it as a function here: export function bound(…) { … } or export const bound = (…) => …, calling what it holds',
      'tools/t.ts:5:14 warning: "wrapped" is exported as a function value (wrap((value: string) => value.length + …), whose parameters and JSDoc gen cannot read, so it is not a tool; declare it as a function here: export function wrapped(…) { … } or export const wrapped = (…) => …, calling what it holds',
    ]);
    expect(unread.file!.tools).toEqual([]);
  });

  it("from a file outside the tools folder is not a tool, with or without a JSDoc of its own or an `as`, with the re-export warning at the const", () => {
    const { generation: outside, messages: said } = generateTool([
      'import { helper } from "../lib/helper";',
      "export const helped = helper;",
      "/** Helps with a JSDoc of its own. @param n N. */",
      "export const documented = helper;",
      "export const asserted = (helper) as typeof helper;",
      "",
    ].join("\n"), { "lib/helper.ts": "/** Helps. @param n N. */\nexport function helper(n: number): number { return n; }\n" });
    expect(said).toEqual([
      'tools/t.ts:2:14 warning: "helped" is re-exported from ../lib/helper.ts, which is not a tool file, so it is not a tool; a tool is a function exported by the tool file that declares it: move it here or wrap it in a function declared here',
      'tools/t.ts:4:14 warning: "documented" is re-exported from ../lib/helper.ts, which is not a tool file, so it is not a tool; a tool is a function exported by the tool file that declares it: move it here or wrap it in a function declared here',
      'tools/t.ts:5:14 warning: "asserted" is re-exported from ../lib/helper.ts, which is not a tool file, so it is not a tool; a tool is a function exported by the tool file that declares it: move it here or wrap it in a function declared here',
    ]);
    expect(outside.file!.tools).toEqual([]);
  });

  it("as the default export is an error at the export statement", () => {
    const { messages: said } = generateTool([
      "/** Doubles. @param x X. */",
      "function inner(x: number): number { return 2 * x; }",
      "export default inner;",
      "",
    ].join("\n"));
    expect(said).toEqual([
      "tools/t.ts:3:1 error: a default export has no name a model can call it by; export it by name instead (export function my_tool(…) or export const my_tool = (…) => …)",
    ]);
  });
});

describe("an object type left with no member by a mapped type", () => {
  const { generation, messages } = generateTool([
    "/**",
    " * Takes nothing in an object.",
    " * @param omitted Omit of every member.",
    " * @param picked Pick of none.",
    " * @param keyless A record without keys.",
    " */",
    'export function empty(omitted: Omit<{ x: number }, "x">, picked: Pick<{ x: number }, never>, keyless?: Record<never, string>): void {}',
    "",
  ].join("\n"));
  const file = generation.file!;

  it("is the closed empty object, as an empty interface is, not the anyOf written for {}", () => {
    expect(messages).toEqual([]);
    expect(parametersOf(file, "empty").properties).toEqual({
      omitted: { type: "object", description: "Omit of every member.", additionalProperties: false },
      picked: { type: "object", description: "Pick of none.", additionalProperties: false },
      keyless: { type: "object", description: "A record without keys.", additionalProperties: false },
    });
    const { validate, logged } = compileStrict(parametersOf(file, "empty"));
    expect(logged).toEqual([]);
    expect(validate({ omitted: {}, picked: {} })).toBe(true);
    expect(validate({ omitted: { x: 1 }, picked: {} })).toBe(false);
    expect(validate({ omitted: 5, picked: {} })).toBe(false);
  });

  it("keeps a strict form, with no properties and nothing required", () => {
    const strict = file.strictTools!.find((tool) => tool.function.name === "empty")!.function;
    expect(strict.strict).toBe(true);
    expect(strict.parameters.properties.keyless).toEqual({ type: ["object", "null"], description: "A record without keys.", properties: {}, additionalProperties: false, required: [] });
  });
});
