import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { SchemasFile } from "../../src/shared/schemas-file.js";
import { compileStrict, fixturesDir, generate, messages, parametersOf } from "./support.js";

const typesDir = path.join(fixturesDir, "types");
let file: SchemasFile;
let warnings: string[];

beforeAll(() => {
  const generation = generate(typesDir);
  expect(messages(generation.diagnostics).filter((m) => m.includes(" error: "))).toEqual([]);
  file = generation.file!;
  warnings = messages(generation.diagnostics);
});

const obj = (properties: object, required: string[], extra: object = {}) => ({ type: "object", properties, additionalProperties: false, required, ...extra });
const str = { type: "string" };
const num = { type: "number" };
const address = {
  type: "object",
  description: "A postal address.",
  properties: { street: { type: "string", description: "Street and number." }, city: str, zip: str },
  additionalProperties: false,
  required: ["city", "street"],
};

describe("tool discovery", () => {
  it("makes every exported function a tool, sorted by name, and nothing else", () => {
    expect(file.tools.map((tool) => tool.function.name)).toEqual([
      "arrays", "dates", "defaults", "enums", "filter", "generics", "inlineTags", "intersections", "literals", "loose",
      "memberTags", "nested", "nothing", "nullable", "paramTags", "primitives", "records", "recursive", "search",
      "tuples", "twice", "unions", "utilities", "withThis",
    ]);
    expect(file.tools.every((tool) => tool.type === "function")).toBe(true);
  });

  it("binds each tool to its file, export and calling convention", () => {
    expect(file.bindings.map((binding) => binding.name)).toEqual(file.tools.map((tool) => tool.function.name));
    expect(file.bindings.find((binding) => binding.name === "search")).toEqual({ name: "search", file: "../types/forms.ts", exportName: "search", call: { kind: "object" } });
    expect(file.bindings.find((binding) => binding.name === "defaults")).toEqual({
      name: "defaults", file: "../types/basics.ts", exportName: "defaults", call: { kind: "positional", params: ["a", "b", "c", "d", "e", "f", "g", "h"] },
    });
    expect(file.bindings.find((binding) => binding.name === "withThis")?.call).toEqual({ kind: "positional", params: ["word"] });
  });

  it("records the tool files and the files they import as inputs", () => {
    expect(file.inputs.toolsDir).toBe("../types");
    expect(file.inputs.files).toEqual(["../types/basics.ts", "../types/forms.ts", "../types/shapes.ts", "../types/structures.ts", "../types/tags.ts"]);
    expect(file.inputs.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("takes the JSDoc summary and body as the description", () => {
    expect(file.tools.find((tool) => tool.function.name === "primitives")?.function.description).toBe("Primitive parameters.\n\nA second paragraph of the description.");
  });
});

// Enum values and anyOf branches are sorted: the checker's own union order depends on the order it
// created the member types in, which differs between a cold run and a watch-mode update.
describe("exact schemas", () => {
  it("string, number, boolean", () => {
    expect(parametersOf(file, "primitives")).toEqual(obj({
      text: { type: "string", description: "Some text." },
      count: { type: "number", description: "A number." },
      flag: { type: "boolean", description: "A boolean." },
    }, ["text", "count", "flag"]));
  });

  it("optional and defaulted parameters; literal defaults appear, computed ones do not", () => {
    expect(parametersOf(file, "defaults")).toEqual(obj({
      a: { type: "string", description: "Optional." },
      b: { type: "number", description: "Number default.", default: 20000 },
      c: { type: "string", description: "String default.", default: "x" },
      d: { type: "boolean", description: "Boolean default.", default: false },
      e: { type: ["null", "string"], description: "Null default.", default: null },
      f: { type: "array", description: "Array default.", items: num, default: [1, -2] },
      g: {
        type: "object", description: "Object default.",
        // The members of the type inferred from the literal are required and carry none of its values as
        // defaults: a model that sends `g` sends all of it, as the function reads only a whole `g`.
        properties: { k: { type: "string" }, n: { type: "array", items: { type: "boolean" } } },
        additionalProperties: false, required: ["k", "n"], default: { k: "v", n: [true] },
      },
      h: { type: "number", description: "Computed default." },
    }, []));
  });

  it("string and numeric literal unions as enum", () => {
    expect(parametersOf(file, "literals")).toEqual(obj({
      mode: { type: "string", description: "A string literal union.", enum: ["fast", "slow"] },
      level: { type: "number", description: "A numeric literal union.", enum: [1, 2, 3] },
    }, ["mode", "level"]));
  });

  it("string and numeric enums as enum", () => {
    expect(parametersOf(file, "enums")).toEqual(obj({
      color: { type: "string", description: "A string enum.", enum: ["red", "green"] },
      level: { type: "number", description: "A numeric enum.", enum: [0, 1] },
    }, ["color", "level"]));
  });

  it("arrays and readonly arrays", () => {
    expect(parametersOf(file, "arrays")).toEqual(obj({
      names: { type: "array", description: "An array.", items: str },
      counts: { type: "array", description: "A readonly array.", items: num },
      flags: { type: "array", description: "Array<T>.", items: { type: "boolean" } },
      words: { type: "array", description: "ReadonlyArray<T>.", items: str },
    }, ["names", "counts", "flags", "words"]));
  });

  it("tuples with a fixed length", () => {
    expect(parametersOf(file, "tuples")).toEqual(obj({
      pair: { type: "array", description: "A tuple.", items: [str, num], minItems: 2, maxItems: 2 },
      at: { type: "array", description: "A labelled tuple.", items: [{ type: "number", title: "x" }, { type: "number", title: "y" }], minItems: 2, maxItems: 2 },
    }, ["pair", "at"]));
  });

  it("nested interfaces and type aliases imported from another file, closed", () => {
    expect(parametersOf(file, "nested")).toEqual(obj({
      user: {
        type: "object", description: "An imported interface with a nested one.",
        properties: { name: str, address, tags: { type: "array", items: str } },
        additionalProperties: false, required: ["address", "name", "tags"],
      },
      point: { type: "object", description: "An imported alias.", properties: { x: num, y: num }, additionalProperties: false, required: ["x", "y"] },
      home: { ...address, description: "Another imported interface." },
    }, ["user", "point", "home"]));
  });

  it("Record<string, T> and index signatures keep the value type and stay open", () => {
    expect(parametersOf(file, "records")).toEqual(obj({
      counts: { type: "object", description: "A record of numbers.", additionalProperties: num },
      points: {
        type: "object", description: "A record of objects.",
        additionalProperties: { type: "object", properties: { x: num, y: num }, additionalProperties: false, required: ["x", "y"] },
      },
      labels: { type: "object", description: "An index signature.", additionalProperties: { type: "array", items: str } },
    }, ["counts", "points", "labels"]));
  });

  it("unions and discriminated unions", () => {
    expect(parametersOf(file, "unions")).toEqual(obj({
      value: { description: "A primitive union.", anyOf: [str, num] },
      shape: {
        description: "A discriminated union.",
        anyOf: [
          { type: "object", properties: { kind: { type: "string", const: "circle" }, radius: num }, additionalProperties: false, required: ["kind", "radius"] },
          { type: "object", properties: { kind: { type: "string", const: "square" }, side: num }, additionalProperties: false, required: ["kind", "side"] },
        ],
      },
    }, ["value", "shape"]));
  });

  it("intersections merge into one closed object", () => {
    expect(parametersOf(file, "intersections")).toEqual(obj({
      labelled: { type: "object", description: "An intersection.", properties: { x: num, y: num, label: str }, additionalProperties: false, required: ["label", "x", "y"] },
    }, ["labelled"]));
  });

  it("Partial, Required, Pick and Omit", () => {
    const settings = { theme: str, size: num, verbose: { type: "boolean" } };
    expect(parametersOf(file, "utilities")).toEqual(obj({
      partial: { type: "object", description: "Partial.", properties: settings, additionalProperties: false },
      full: { type: "object", description: "Required.", properties: settings, additionalProperties: false, required: ["size", "theme", "verbose"] },
      picked: { type: "object", description: "Pick.", properties: { theme: str }, additionalProperties: false, required: ["theme"] },
      omitted: { type: "object", description: "Omit.", properties: { verbose: { type: "boolean" } }, additionalProperties: false },
    }, ["partial", "full", "picked", "omitted"]));
  });

  it("T | null keeps null, also when optional", () => {
    expect(parametersOf(file, "nullable")).toEqual(obj({
      a: { type: ["null", "string"], description: "Required, nullable." },
      b: { type: ["null", "number"], description: "Optional, nullable." },
      c: { description: "Nullable literal union.", anyOf: [{ type: "string", enum: ["x", "y"] }, { type: "null" }], default: null },
    }, ["a"]));
  });

  it("generic types instantiated in a parameter", () => {
    expect(parametersOf(file, "generics")).toEqual(obj({
      page: {
        type: "object", description: "A page of users.",
        properties: {
          items: { type: "array", items: { type: "object", properties: { name: str, address, tags: { type: "array", items: str } }, additionalProperties: false, required: ["address", "name", "tags"] } },
          next: { type: ["null", "string"] },
        },
        additionalProperties: false, required: ["items", "next"],
      },
    }, ["page"]));
  });

  it("recursive types keep their definitions inside the tool's own parameters", () => {
    expect(parametersOf(file, "recursive")).toEqual(obj({
      root: { $ref: "#/definitions/TreeNode", description: "A recursive interface." },
      numbers: { $ref: "#/definitions/Tree_number_", description: "A recursive generic." },
    }, ["root", "numbers"], {
      definitions: {
        TreeNode: { type: "object", properties: { label: str, children: { type: "array", items: { $ref: "#/definitions/TreeNode" } } }, additionalProperties: false, required: ["children", "label"] },
        Tree_number_: {
          type: "object",
          properties: { value: num, left: { $ref: "#/definitions/Tree_number_" }, right: { $ref: "#/definitions/Tree_number_" } },
          additionalProperties: false, required: ["value"],
        },
      },
    }));
    const { validate } = compileStrict(parametersOf(file, "recursive"));
    expect(validate({ root: { label: "a", children: [{ label: "b", children: [] }] }, numbers: { value: 1, left: { value: 2 } } })).toBe(true);
    expect(validate({ root: { label: "a", children: [{ label: "b" }] }, numbers: { value: 1 } })).toBe(false);
  });

  it("Date as a date-time string", () => {
    expect(parametersOf(file, "dates")).toEqual(obj({ at: { type: "string", description: "A date.", format: "date-time" } }, ["at"]));
  });

  it("unknown and any accept any value, with a warning", () => {
    expect(parametersOf(file, "loose")).toEqual(obj({ a: { description: "Unknown." }, b: { description: "Any." } }, ["a", "b"]));
    expect(warnings).toContain('test/fixtures/gen/types/structures.ts:57:23 warning: parameter "a" of tool "loose" has type "unknown", so any JSON value is accepted; a precise type lets the model and the validator do better');
    expect(warnings).toContain('test/fixtures/gen/types/structures.ts:57:35 warning: parameter "b" of tool "loose" has type "any", so any JSON value is accepted; a precise type lets the model and the validator do better');
  });
});

describe("functions and documentation", () => {
  it("a sole destructured parameter exposes its members, with @param opts.field, member docs and binding defaults", () => {
    expect(parametersOf(file, "search")).toEqual(obj({
      query: { type: "string", description: "What to look for." },
      limit: { type: "number", description: "How many results.", minimum: 1, default: 10 },
    }, ["query"]));
  });

  it("an object parameter takes member docs and @param opts.field as nested descriptions", () => {
    expect(parametersOf(file, "filter")).toEqual(obj({
      options: {
        type: "object", description: "The filter.",
        properties: { field: { type: "string", description: "The field to filter on." }, value: { type: "string", description: "The value to match." } },
        additionalProperties: false, required: ["field", "value"],
      },
    }, ["options"]));
  });

  it("export const with a function expression, a this parameter, no parameters", () => {
    expect(parametersOf(file, "twice")).toEqual(obj({ n: { type: "number", description: "A number." } }, ["n"]));
    expect(parametersOf(file, "withThis")).toEqual(obj({ word: { type: "string", description: "A word." } }, ["word"]));
    expect(parametersOf(file, "nothing")).toEqual(obj({}, []));
  });
});

describe("validation tags", () => {
  it("on parameters, written after their @param, with the right JSON types", () => {
    expect(parametersOf(file, "paramTags")).toEqual(obj({
      count: { type: "number", description: "How many.", minimum: 1, maximum: 100, multipleOf: 1, default: 10 },
      ratio: { type: "number", description: "A ratio.", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      code: { type: "string", description: "A code.", pattern: "^[A-Z]+$", minLength: 2, maxLength: 8, examples: ["ABC", "XY"] },
      email: { type: "string", description: "An address.", deprecated: true, format: "email" },
      ids: { type: "array", description: "Some ids.", items: num, minItems: 1, maxItems: 5, uniqueItems: true },
    }, ["count", "ratio", "code", "email", "ids"]));
  });

  it("on the parameter itself", () => {
    expect(parametersOf(file, "inlineTags")).toEqual(obj({ limit: { type: "number", description: "Max results.", minimum: 1, maximum: 50 } }, ["limit"]));
  });

  it("on members", () => {
    expect(parametersOf(file, "memberTags")).toEqual(obj({
      query: {
        type: "object", description: "The query.",
        properties: {
          text: { type: "string", description: "The text.", pattern: "^\\S", minLength: 1, maxLength: 200, examples: ["cats"] },
          size: { type: "number", description: "Page size.", minimum: 1, maximum: 50, default: 20 },
          since: { type: "string", format: "date-time" },
          tags: { type: "array", items: str, minItems: 1, uniqueItems: true },
          q: { type: "string", deprecated: true },
        },
        additionalProperties: false, required: ["text"],
      },
    }, ["query"]));
  });
});

describe("every parameters schema", () => {
  it("compiles in Ajv strict mode with no error and no warning, and refers to nothing outside itself", () => {
    for (const tool of file.tools) {
      const { logged } = compileStrict(tool.function.parameters);
      expect({ tool: tool.function.name, logged }).toEqual({ tool: tool.function.name, logged: [] });
      const refs = JSON.stringify(tool.function.parameters).match(/"\$ref":"[^"]*"/g) ?? [];
      for (const ref of refs) expect(ref).toMatch(/^"\$ref":"#\/definitions\/[A-Za-z0-9_.-]+"$/);
    }
  });
});
