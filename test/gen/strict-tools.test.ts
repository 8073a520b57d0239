import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkSchemas } from "../../src/gen/command/check-schemas.js";
import { serializeSchemasFile } from "../../src/gen/serialize.js";
import { toStrictParameters } from "../../src/shared/dialects/strict-parameters.js";
import type { JsonSchema, ParametersSchema, SchemasFile, ToolDefinition } from "../../src/shared/schemas-file.js";
import { fixtureSchemas } from "../fixtures/executor/schemas.js";
import { strictDialectViolations } from "../../src/scripted-server/strict-dialect.js";
import { strictSchemaProblems } from "../support/strict-dialect.js";
import { fixturesDir, generate, messages, repoRoot, writeTree } from "./support.js";

let file: SchemasFile;
let warnings: string[];

beforeAll(() => {
  const generation = generate(path.join(fixturesDir, "types"));
  file = generation.file!;
  warnings = messages(generation.diagnostics).filter((line) => line.includes("strict"));
});

function strictOf(name: string): ToolDefinition["function"] {
  const tool = file.strictTools!.find((entry) => entry.function.name === name);
  if (tool === undefined) throw new Error(`no strict tool ${name}`);
  return tool.function;
}

const obj = (properties: object, extra: object = {}) => ({ type: "object", properties, additionalProperties: false, required: Object.keys(properties), ...extra });

describe("strictTools in the schemas file", () => {
  it("lists every tool, sorted by name like tools, with the same names and descriptions", () => {
    expect(file.strictTools!.map((tool) => tool.function.name)).toEqual(file.tools.map((tool) => tool.function.name));
    file.strictTools!.forEach((tool, index) => {
      expect(tool.type).toBe("function");
      expect(tool.function.description).toBe(file.tools[index]!.function.description);
    });
  });

  it("makes every expressible fixture tool strict, and every strict parameters keeps the dialect and compiles in strict Ajv", () => {
    const strict = file.strictTools!.filter((tool) => tool.function.strict === true);
    expect(file.strictTools!.filter((tool) => tool.function.strict !== true).map((tool) => tool.function.name)).toEqual(["loose", "records"]);
    for (const tool of strict) expect({ tool: tool.function.name, problems: strictSchemaProblems(tool.function.parameters) }).toEqual({ tool: tool.function.name, problems: [] });
  });

  it("keeps the lenient definition, with strict: false, for a tool it cannot express, and warns once at the parameter", () => {
    const records = file.tools.find((tool) => tool.function.name === "records")!.function;
    expect(strictOf("records")).toEqual({ ...records, strict: false });
    expect(warnings).toEqual([
      'test/fixtures/gen/types/structures.ts:9:25 warning: tool "records" is offered with strict: false in strict mode: parameter "counts" is an open object (a Record or an index signature), whose keys strict mode needs named in advance (and 2 more); the model\'s arguments are still validated',
      'test/fixtures/gen/types/structures.ts:57:23 warning: tool "loose" is offered with strict: false in strict mode: parameter "a" accepts any JSON value (its type is unknown or any), which strict mode cannot express (and 1 more); the model\'s arguments are still validated',
    ]);
  });

  it("is covered by --check: a hand-edited strict entry makes the file stale, naming the tool", () => {
    const text = serializeSchemasFile(file);
    expect(checkSchemas(text, file, text).upToDate).toBe(true);
    const edited = JSON.parse(text) as SchemasFile;
    edited.strictTools!.find((tool) => tool.function.name === "search")!.function.strict = false;
    expect(checkSchemas(JSON.stringify(edited, null, 2), file, text)).toEqual({ upToDate: false, added: [], removed: [], changed: ["search"] });
    const before = JSON.parse(text) as SchemasFile;
    delete before.strictTools;
    expect(checkSchemas(JSON.stringify(before, null, 2), file, text).changed).toEqual(file.tools.map((tool) => tool.function.name));
  });

  it("requires optional and defaulted parameters, admitting null, and says dropped defaults in words", () => {
    expect(strictOf("search")).toEqual({
      name: "search",
      description: expect.any(String),
      strict: true,
      parameters: obj({
        query: { type: "string", description: "What to look for." },
        limit: { type: ["number", "null"], description: "How many results. Default: 10.", minimum: 1 },
      }),
    });
  });

  it("keeps supported keywords, drops the rest into the description", () => {
    expect(strictOf("paramTags").parameters.properties).toEqual({
      count: { type: "number", description: "How many. Default: 10.", minimum: 1, maximum: 100, multipleOf: 1 },
      ratio: { type: "number", description: "A ratio.", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      code: { type: "string", description: 'A code. At least 2 characters; at most 8 characters; for example "ABC", "XY".', pattern: "^[A-Z]+$" },
      email: { type: "string", description: "An address. Deprecated.", format: "email" },
      ids: { type: "array", description: "Some ids. Unique items.", items: { type: "number" }, minItems: 1, maxItems: 5 },
    });
  });

  it("admits null for optional members at any depth, and leaves a type that has null as it is", () => {
    expect(strictOf("utilities").parameters.properties.partial).toEqual(
      obj({ theme: { type: ["string", "null"] }, size: { type: ["number", "null"] }, verbose: { type: ["boolean", "null"] } }, { description: "Partial." }),
    );
    expect(strictOf("nullable").parameters.properties).toEqual({
      a: { type: ["null", "string"], description: "Required, nullable." },
      b: { type: ["null", "number"], description: "Optional, nullable." },
      c: { description: "Nullable literal union. Default: null.", anyOf: [{ type: "string", enum: ["x", "y"] }, { type: "null" }] },
    });
  });

  it("lets a $ref stand alone: a described one becomes its definition, an optional one an anyOf with null", () => {
    const { properties, definitions } = strictOf("recursive").parameters as ParametersSchema & { definitions: Record<string, JsonSchema> };
    const treeNode = obj({ label: { type: "string" }, children: { type: "array", items: { $ref: "#/definitions/TreeNode" } } });
    expect(properties.root).toEqual({ ...treeNode, description: "A recursive interface." });
    expect(definitions.TreeNode).toEqual(treeNode);
    expect(definitions.Tree_number_!.properties).toEqual({
      value: { type: "number" },
      left: { anyOf: [{ $ref: "#/definitions/Tree_number_" }, { type: "null" }] },
      right: { anyOf: [{ $ref: "#/definitions/Tree_number_" }, { type: "null" }] },
    });
  });

  it("turns a tuple into an array of its element types with its length, the order in words", () => {
    expect(strictOf("tuples").parameters.properties).toEqual({
      pair: { type: "array", description: "A tuple. Items in this order: string, number.", items: { anyOf: [{ type: "string" }, { type: "number" }] }, minItems: 2, maxItems: 2 },
      at: { type: "array", description: "A labelled tuple.", items: { type: "number" }, minItems: 2, maxItems: 2 },
    });
  });

  it("offers the built-in tools strictly: read_file's optional offset and limit admit null", () => {
    const { tools, strictTools } = generate(path.join(repoRoot, "tools")).file!;
    expect(strictTools!.map((tool) => tool.function.strict)).toEqual([true, true, true, true, true]);
    expect(tools.every((tool) => tool.function.strict === undefined)).toBe(true);
    expect(strictTools!.find((tool) => tool.function.name === "read_file")!.function.parameters).toEqual(obj({
      path: { type: "string", description: 'The file, relative to the workspace root (for example "src/index.ts"), or an absolute path inside the workspace. At least 1 character.' },
      offset: { type: ["number", "null"], description: "How many lines to skip before the first line returned; 0 starts at the top of the file. Default: 0.", minimum: 0, multipleOf: 1 },
      limit: { type: ["number", "null"], description: "The most lines to return. Default: 2000.", minimum: 1, maximum: 2000, multipleOf: 1 },
    }));
  });

  it("expresses the executor fixture tools that have a strict form, and refuses the open ones", () => {
    const lenient: string[] = [];
    for (const tool of fixtureSchemas.tools) {
      const result = toStrictParameters(tool.function.parameters);
      if (!result.ok) lenient.push(tool.function.name);
      else expect({ tool: tool.function.name, problems: strictSchemaProblems(result.parameters) }).toEqual({ tool: tool.function.name, problems: [] });
    }
    expect(lenient.length).toBeLessThan(fixtureSchemas.tools.length / 2);
  });
});

describe("toStrictParameters on hand-written schemas", () => {
  const params = (properties: Record<string, JsonSchema>, required: string[] = []): ParametersSchema => ({ type: "object", properties, required, additionalProperties: false });
  const strictProperties = (parameters: ParametersSchema) => {
    const result = toStrictParameters(parameters);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(strictSchemaProblems(result.parameters)).toEqual([]);
    return result.parameters.properties;
  };

  it("adds null to an optional enum's values, wraps an optional const, and makes oneOf an anyOf", () => {
    expect(strictProperties(params({
      level: { type: "string", enum: ["a", "b"] },
      kind: { type: "string", const: "k", description: "The kind." },
      either: { oneOf: [{ type: "string" }, { type: "number" }] },
    }))).toEqual({
      level: { type: ["string", "null"], enum: ["a", "b", null] },
      kind: { description: "The kind.", anyOf: [{ type: "string", const: "k" }, { type: "null" }] },
      either: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
    });
  });

  it("keeps the formats the dialect knows and says the others in words", () => {
    expect(strictProperties(params({ at: { type: "string", format: "date" }, site: { type: "string", format: "uri", description: "Where" } }, ["at", "site"]))).toEqual({
      at: { type: "string", format: "date" },
      site: { type: "string", description: "Where. Format: uri." },
    });
  });

  it("refuses composition it cannot carry and schemas that accept anything, naming the member", () => {
    expect(toStrictParameters(params({ both: { allOf: [{ type: "string" }] }, any: {} }, ["both", "any"]))).toEqual({
      ok: false,
      problems: [
        { parameter: "both", member: "both", reason: "uses allOf, which strict mode cannot express" },
        { parameter: "any", member: "any", reason: "accepts any JSON value (its type is unknown or any), which strict mode cannot express" },
      ],
    });
  });
});

describe("the strict dialect's limits", () => {
  const params = (properties: Record<string, JsonSchema>, extra: object = {}): ParametersSchema => ({ type: "object", properties, required: Object.keys(properties), additionalProperties: false, ...extra });
  const nested = (levels: number): JsonSchema => (levels === 0 ? { type: "string" } : { type: "object", properties: { x: nested(levels - 1) }, required: ["x"], additionalProperties: false });

  it("allows 10 levels of objects and refuses 11, naming the deepest parameter", () => {
    expect(toStrictParameters(params({ x: nested(9) })).ok).toBe(true);
    expect(toStrictParameters(params({ a: nested(2), x: nested(10) }))).toEqual({
      ok: false, problems: [{ parameter: "x", reason: "nests objects 11 levels deep, the parameters object counted as the first; strict mode allows 10" }],
    });
  });

  it("refuses more than 1000 enum values and more than 5000 properties in all, naming the parameter holding the most", () => {
    const values = Array.from({ length: 501 }, (_, index) => `v${index}`);
    expect(toStrictParameters(params({ a: { type: "string", enum: values.slice(0, 500) }, b: { type: "string", enum: values.slice(0, 500) } })).ok).toBe(true);
    expect(toStrictParameters(params({ a: { type: "string", enum: values.slice(0, 500) }, b: { type: "string", enum: values } }))).toEqual({
      ok: false, problems: [{ parameter: "b", reason: "holds 501 of the tool's 1001 enum values; strict mode allows 1000 in all" }],
    });
    const wide = (count: number): JsonSchema => obj(Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, { type: "string" }]))) as JsonSchema;
    expect(toStrictParameters(params({ small: wide(10), big: wide(4990) }))).toEqual({
      ok: false, problems: [{ parameter: "big", reason: "holds 4990 of the tool's 5002 object properties; strict mode allows 5000 in all" }],
    });
  });

  it("names no parameter when the parameters themselves are too many, and says so of them", () => {
    const many = Object.fromEntries(Array.from({ length: 5001 }, (_, index) => [`p${index}`, { type: "string" }]));
    expect(toStrictParameters(params(many))).toEqual({ ok: false, problems: [{ reason: "have 5001 object properties in all; strict mode allows 5000" }] });
  });

  it("refuses more than 120,000 characters of property names, definition names, enum values and const values in all", () => {
    // 600 characters each (1,200 UTF-8 bytes: characters are counted, not bytes), 199 of them: under the enum limits.
    const words = { type: "string", enum: Array.from({ length: 199 }, (_, index) => `${"é".repeat(597)}${String(index).padStart(3, "0")}`) };
    expect(toStrictParameters(params({ words })).ok).toBe(true);
    expect(toStrictParameters(params({ note: { type: "string", const: "x".repeat(1000) }, words }))).toEqual({
      ok: false,
      problems: [{ parameter: "words", reason: "holds 119400 of the tool's 120409 characters of property names, definition names, enum values and const values; strict mode allows 120000 in all" }],
    });
  });

  it("counts a definition's name and contents for every parameter that reaches it, and once for the tool", () => {
    const Colour = { type: "string", enum: Array.from({ length: 600 }, (_, index) => `c${index}`) };
    const result = toStrictParameters(params({ fg: { $ref: "#/definitions/Colour" }, bg: { $ref: "#/definitions/Colour" }, mode: { type: "string", enum: Array.from({ length: 401 }, (_, index) => `m${index}`) } }, { definitions: { Colour } }));
    expect(result).toEqual({ ok: false, problems: [{ parameter: "fg", reason: "holds 600 of the tool's 1001 enum values; strict mode allows 1000 in all" }] });
  });

  it("refuses an enum of more than 250 strings with more than 15,000 characters, but not one of 250", () => {
    const long = (count: number): string[] => Array.from({ length: count }, (_, index) => `${String(index).padStart(3, "0")}${"z".repeat(57)}`);
    expect(toStrictParameters(params({ kind: { type: "string", enum: long(250) } })).ok).toBe(true);
    expect(toStrictParameters(params({ other: { type: "string" }, kind: { type: ["string", "null"], enum: [...long(251), null] } })).ok).toBe(true);
    expect(toStrictParameters(params({ other: { type: "string" }, kind: { type: "string", enum: long(251) } }))).toEqual({
      ok: false,
      problems: [{ parameter: "kind", reason: "has an enum of 251 strings with 15060 characters in all; strict mode allows 15000 characters in an enum of more than 250 strings" }],
    });
  });

  it("agrees with the scripted server, which refuses like the API, on each limit's edge", () => {
    const strings = (count: number, length: number): string[] => Array.from({ length: count }, (_, index) => `${index}`.padEnd(length, "é"));
    const edges: ParametersSchema[] = [
      params({ x: nested(9) }), params({ x: nested(10) }),
      params({ a: { type: "string", enum: strings(1000, 3) } }), params({ a: { type: "string", enum: strings(1001, 4) } }),
      params({ w: obj(Object.fromEntries(Array.from({ length: 4999 }, (_, index) => [`p${index}`, { type: "string" }]))) as JsonSchema }),
      params({ w: obj(Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`p${index}`, { type: "string" }]))) as JsonSchema }),
      params({ c: { type: "string", const: "é".repeat(119_999) } }), params({ c: { type: "string", const: "é".repeat(120_000) } }),
      params({ e: { type: "string", enum: strings(251, 59) } }), params({ e: { type: "string", enum: strings(251, 60) } }),
    ];
    const verdicts = edges.map((schema) => [toStrictParameters(schema).ok, strictDialectViolations(schema).length === 0]);
    expect(verdicts).toEqual(edges.map((_, index) => (index % 2 === 0 ? [true, true] : [false, false])));
  });

  it("counts a recursive definition once, and nesting through it only until it recurses", () => {
    const tree = { type: "object", properties: { kids: { type: "array", items: { $ref: "#/definitions/T" } } }, required: ["kids"], additionalProperties: false };
    const result = toStrictParameters(params({ t: { $ref: "#/definitions/T" } }, { definitions: { T: tree } }));
    expect(result.ok).toBe(true);
  });

  it("names the member path of a problem deep inside a parameter", () => {
    const open = { type: "object", additionalProperties: { type: "number" } };
    expect(toStrictParameters(params({ opts: { type: "object", properties: { list: { type: "array", items: open } }, required: ["list"], additionalProperties: false } }))).toEqual({
      ok: false,
      problems: [{ parameter: "opts", member: "opts.list[]", reason: "is an open object (a Record or an index signature), whose keys strict mode needs named in advance" }],
    });
  });
});

describe("strict warnings in a generated project", () => {
  it("names the tool, the parameter and the member at its file:line:col", () => {
    const root = writeTree({
      "tools/f.ts": "/**\n * Tag things.\n * @param opts The options.\n */\nexport function tag(opts: { name: string; extra?: Record<string, string> }): void {}\n",
    });
    const generation = generate(path.join(root, "tools"));
    expect(messages(generation.diagnostics, root)).toEqual([
      'tools/f.ts:5:21 warning: tool "tag" is offered with strict: false in strict mode: parameter "opts" at opts.extra is an open object (a Record or an index signature), whose keys strict mode needs named in advance; the model\'s arguments are still validated',
    ]);
    expect(generation.file!.strictTools![0]!.function.strict).toBe(false);
  });

  it("points a limit at the parameter past it, and keeps the tool lenient with strict: false", () => {
    const levels = Array.from({ length: 10 }, (_, index) => `type L${index + 1} = { inner: L${index} };`).join("\n");
    const root = writeTree({
      "tools/deep.ts": `type L0 = { leaf: string };\n${levels}\n/**\n * Store a tree.\n * @param name Its name.\n * @param tree The tree.\n */\nexport function store(name: string, tree: L9): void {}\n`,
    });
    const generation = generate(path.join(root, "tools"));
    expect(messages(generation.diagnostics, root)).toEqual([
      'tools/deep.ts:17:37 warning: tool "store" is offered with strict: false in strict mode: parameter "tree" nests objects 11 levels deep, the parameters object counted as the first; strict mode allows 10; the model\'s arguments are still validated',
    ]);
    const [lenient, strict] = [generation.file!.tools[0]!.function, generation.file!.strictTools![0]!.function];
    expect(strict).toEqual({ ...lenient, strict: false });
  });
});
