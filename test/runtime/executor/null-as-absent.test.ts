import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { dropOptionalNulls } from "../../../src/runtime/execution/null-as-absent.js";
import { createToolExecutor } from "../../../src/runtime/execution/tool-executor.js";
import type { ToolContext, ToolOutcome } from "../../../src/runtime/loop/types.js";
import type { JsonSchema, ParametersSchema } from "../../../src/shared/schemas-file.js";
import { fixtureDir, fixtureSchemas } from "../../fixtures/executor/schemas.js";

const idle: ToolContext = { workspace: "/the/workspace", signal: new AbortController().signal };
const executor = createToolExecutor({ schemas: fixtureSchemas, schemasDir: fixtureDir });

function call(name: string, args: string): Promise<ToolOutcome> {
  return executor.execute({ id: "call_1", type: "function", function: { name, arguments: args } }, idle);
}

describe("null for an optional parameter means it was not given", () => {
  test("a positional parameter sent as null gets the function's default", async () => {
    expect(await call("add", '{"a": 1, "b": null}')).toEqual({ status: "ok", content: "11" });
    expect(await call("describeCall", '{"label": "x", "count": null, "flag": null}')).toEqual({
      status: "ok",
      content: '{"label":"x","count":"left out","flag":"left out"}',
    });
  });

  test("members of an object parameter and of a $ref'd definition sent as null get their defaults, with no note", async () => {
    expect(await call("saveRecord", '{"title": "t", "tags": null, "options": {"color": null, "size": 2}}')).toEqual({
      status: "ok",
      content: '{"title":"t","tags":[],"options":{"size":2}}',
    });
  });

  test("null for a required parameter is still an argument error naming it", async () => {
    expect(await call("add", '{"a": null, "b": null}')).toEqual({
      status: "invalid_arguments",
      content: [
        "The arguments for add do not match its parameters, so it was not run:",
        "- a: expected number, got null",
        "Parameters: a (number, required); b (number, optional)",
        "Fix these and call add again.",
      ].join("\n"),
    });
  });

  test("a null inside a discriminated union's branch is dropped only where the branch is clear", async () => {
    expect(await call("area", '{"shape": {"kind": "square", "side": 3}}')).toEqual({ status: "ok", content: "9" });
    expect((await call("area", '{"shape": {"kind": "square", "side": null}}')).status).toBe("invalid_arguments");
  });
});

const optionalMembers: ParametersSchema = {
  type: "object",
  properties: {
    top: { type: "string" },
    nested: { type: "object", properties: { a: { type: "number" }, b: { type: ["null", "number"] } }, required: ["a"], additionalProperties: false },
    list: { type: "array", items: { $ref: "#/definitions/Item" } },
    pair: { type: "array", items: [{ type: "string" }, { $ref: "#/definitions/Item" }], minItems: 2, maxItems: 2 },
    shape: {
      anyOf: [
        { type: "object", properties: { kind: { type: "string", const: "c" }, r: { type: "number" } }, required: ["kind"], additionalProperties: false },
        { type: "object", properties: { kind: { type: "string", const: "s" }, side: { type: "number" } }, required: ["kind"], additionalProperties: false },
      ],
    },
    either: {
      anyOf: [
        { type: "object", properties: { x: { type: "number" } }, additionalProperties: false },
        { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, additionalProperties: false },
      ],
    },
    record: { type: "object", additionalProperties: { $ref: "#/definitions/Item" } },
  },
  required: ["top"],
  additionalProperties: false,
  definitions: {
    Item: { type: "object", properties: { id: { type: "string" }, note: { type: "string" } }, required: ["id"], additionalProperties: false },
  },
};

/** A draft-07 schema as 2020-12 writes it: `definitions` as `$defs`, with the `$ref`s into it. */
function asDefs(schema: ParametersSchema): ParametersSchema {
  const renamed = JSON.parse(JSON.stringify(schema).replaceAll('"#/definitions/', '"#/$defs/')) as ParametersSchema;
  renamed.$defs = renamed.definitions!;
  delete renamed.definitions;
  return renamed;
}

function dropped(args: Record<string, unknown>, schema: ParametersSchema = optionalMembers): Record<string, unknown> {
  dropOptionalNulls(args, schema);
  return args;
}

describe("dropOptionalNulls", () => {
  test("removes nulls of optional members at every depth, keeps nulls of required ones", () => {
    expect(dropped({ top: null, nested: { a: null, b: null } })).toEqual({ top: null, nested: { a: null } });
    expect(dropped({ top: "t", list: [{ id: "1", note: null }, { id: null }] })).toEqual({ top: "t", list: [{ id: "1" }, { id: null }] });
    expect(dropped({ top: "t", pair: ["a", { id: "1", note: null }] })).toEqual({ top: "t", pair: ["a", { id: "1" }] });
    expect(dropped({ top: "t", record: { k: { id: "1", note: null } } })).toEqual({ top: "t", record: { k: { id: "1" } } });
  });

  const point = (defs: "definitions" | "$defs"): ParametersSchema => ({
    type: "object",
    [defs]: {
      pt: { type: "object", properties: { x: { type: "number" }, label: { type: "string" } }, required: ["x"] },
      box: { type: "object", properties: { corner: { $ref: `#/${defs}/pt` }, note: { type: "string" } }, required: ["corner"] },
      alias: { $ref: `#/${defs}/box` },
    },
    properties: {
      p: { $ref: `#/${defs}/pt` },
      path: { type: "array", items: { $ref: `#/${defs}/pt` } },
      box: { $ref: `#/${defs}/box` },
      aliased: { $ref: `#/${defs}/alias` },
      either: { anyOf: [{ $ref: `#/${defs}/pt` }, { type: "string" }] },
    },
    required: ["p"],
  });

  test.each(["$defs", "definitions"] as const)("follows a $ref into %s: one level, two levels, an array's items, an alias, a union branch", (defs) => {
    const schema = point(defs);
    expect(dropped({ p: { x: 2, label: null } }, schema)).toEqual({ p: { x: 2 } });
    expect(dropped({ p: { x: null, label: null } }, schema)).toEqual({ p: { x: null } });
    expect(dropped({ p: { x: 1 }, box: { corner: { x: 2, label: null }, note: null } }, schema)).toEqual({ p: { x: 1 }, box: { corner: { x: 2 } } });
    expect(dropped({ p: { x: 1 }, path: [{ x: 1, label: null }, { x: 2, label: "b" }, { x: null }] }, schema)).toEqual({ p: { x: 1 }, path: [{ x: 1 }, { x: 2, label: "b" }, { x: null }] });
    expect(dropped({ p: { x: 1 }, aliased: { corner: { x: 3, label: null }, note: null } }, schema)).toEqual({ p: { x: 1 }, aliased: { corner: { x: 3 } } });
    expect(dropped({ p: { x: 1 }, either: { x: 4, label: null } }, schema)).toEqual({ p: { x: 1 }, either: { x: 4 } });
  });

  test("a $ref is a JSON pointer: into a definition's members, with ~0, ~1 and percent escapes, and # for the whole schema", () => {
    const schema: ParametersSchema = {
      type: "object",
      $defs: {
        box: { type: "object", properties: { size: { type: "object", properties: { w: { type: "number" }, unit: { type: "string" } }, required: ["w"] } } },
        "a/b~c d": { type: "object", properties: { n: { type: "string" } } },
        // What the last segment alone would name: a pointer deeper in must not land here.
        size: { type: "object", properties: { w: { type: "number" }, unit: { type: "string" } }, required: ["w", "unit"] },
      },
      properties: {
        size: { $ref: "#/$defs/box/properties/size" },
        odd: { $ref: "#/$defs/a~1b~0c%20d" },
        again: { $ref: "#" },
        name: { type: "string" },
      },
      required: [],
    };
    expect(dropped({ size: { w: 1, unit: null } }, schema)).toEqual({ size: { w: 1 } });
    expect(dropped({ odd: { n: null } }, schema)).toEqual({ odd: {} });
    expect(dropped({ again: { name: null, again: { size: { w: 1, unit: null } } } }, schema)).toEqual({ again: { again: { size: { w: 1 } } } });
  });

  test("a $ref that leads nowhere (another document, an anchor, a missing name, a bad escape) touches nothing below it", () => {
    const schema: ParametersSchema = {
      type: "object",
      $defs: { pt: { type: "object", properties: { label: { type: "string" } } } },
      properties: {
        a: { $ref: "other.json#/$defs/pt" },
        b: { $ref: "#pt" },
        c: { $ref: "#/$defs/missing" },
        d: { $ref: "#/$defs/%E0%A4%A" },
        e: { $ref: "#/$defs/pt/properties/label/nothing" },
      },
      required: [],
    };
    const args = { a: { label: null }, b: { label: null }, c: { label: null }, d: { label: null }, e: { label: null } };
    expect(dropped(structuredClone(args), schema)).toEqual(args);
  });

  test("goes into a union only through the one branch the value fits", () => {
    expect(dropped({ top: "t", shape: { kind: "s", side: null } })).toEqual({ top: "t", shape: { kind: "s" } });
    expect(dropped({ top: "t", shape: { kind: "c", r: null } })).toEqual({ top: "t", shape: { kind: "c" } });
    // {x: null} fits both branches, and both call x optional: absent whichever the model meant.
    expect(dropped({ top: "t", either: { x: null } })).toEqual({ top: "t", either: {} });
    expect(dropped({ top: "t", either: { x: 1, y: null } })).toEqual({ top: "t", either: { x: 1 } });
  });

  test("leaves unknown keys, non-objects and keys named like Object.prototype members alone", () => {
    expect(dropped({ top: "t", extra: null, constructor: null })).toEqual({ top: "t", extra: null, constructor: null });
    const proto = JSON.parse('{"top": "t", "__proto__": null}') as Record<string, unknown>;
    expect(Object.hasOwn(dropped(proto), "__proto__")).toBe(true);
  });

  test("stops at a depth it will not walk, and follows a $ref loop only so far", () => {
    const selfRef: ParametersSchema = { type: "object", properties: { a: { $ref: "#/definitions/A" } }, required: [], additionalProperties: false, definitions: { A: { $ref: "#/definitions/A" } } };
    expect(dropped({ a: { b: null } }, selfRef)).toEqual({ a: { b: null } });
    let deep: Record<string, unknown> = { id: "x", note: null };
    const tree: ParametersSchema = {
      type: "object", properties: { t: { $ref: "#/definitions/T" } }, required: ["t"], additionalProperties: false,
      definitions: { T: { type: "object", properties: { id: { type: "string" }, note: { type: "string" }, kid: { $ref: "#/definitions/T" } }, required: ["id"], additionalProperties: false } },
    };
    for (let i = 0; i < 10_000; i++) deep = { id: "x", kid: deep };
    expect(() => dropOptionalNulls({ t: deep }, tree)).not.toThrow();
  });

  test("only ever deletes nulls, never throws, never touches a prototype, and a second pass changes nothing", () => {
    const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: "small" },
        fc.constant(null), fc.string({ maxLength: 3 }), fc.integer(),
        fc.array(tie("v"), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom("top", "nested", "a", "b", "list", "id", "note", "shape", "kind", "r", "side", "either", "x", "y", "record", "__proto__", "constructor"), tie("v"), { maxKeys: 5 }),
      ),
    })).v;
    const withDefs = asDefs(optionalMembers);
    fc.assert(fc.property(fc.dictionary(fc.constantFrom(...Object.keys(optionalMembers.properties), "__proto__"), value, { maxKeys: 6 }), (args) => {
      const before = structuredClone(args);
      // The same schema written with 2020-12's `$defs` drops exactly what the draft-07 form drops.
      const inDefs = structuredClone(args);
      dropOptionalNulls(args, optionalMembers);
      expect(onlyNullsRemoved(before, args)).toBe(true);
      dropOptionalNulls(inDefs, withDefs);
      expect(inDefs).toEqual(args);
      const once = structuredClone(args);
      dropOptionalNulls(args, optionalMembers);
      expect(args).toEqual(once);
      expect(Object.getPrototypeOf({})).toBe(Object.prototype);
      expect(({} as JsonSchema).polluted).toBeUndefined();
    }), { numRuns: 300, seed: 8, examples: [[{ top: "t", list: [{ id: "1", note: null }] }]] });
  });
});

function onlyNullsRemoved(before: unknown, after: unknown): boolean {
  if (typeof before !== "object" || before === null) return Object.is(before, after);
  if (Array.isArray(before)) return Array.isArray(after) && before.length === after.length && before.every((item, i) => onlyNullsRemoved(item, after[i]));
  if (typeof after !== "object" || after === null || Array.isArray(after)) return false;
  const a = after as Record<string, unknown>;
  return Object.entries(before).every(([key, item]) => (Object.hasOwn(a, key) ? onlyNullsRemoved(item, a[key]) : item === null)) && Object.keys(a).every((key) => Object.hasOwn(before, key));
}
