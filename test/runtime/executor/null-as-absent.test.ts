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

  test("goes into a union only through the one branch the value fits", () => {
    expect(dropped({ top: "t", shape: { kind: "s", side: null } })).toEqual({ top: "t", shape: { kind: "s" } });
    expect(dropped({ top: "t", shape: { kind: "c", r: null } })).toEqual({ top: "t", shape: { kind: "c" } });
    // {x: null} fits both branches: ambiguous, left to the validator.
    expect(dropped({ top: "t", either: { x: null } })).toEqual({ top: "t", either: { x: null } });
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
    fc.assert(fc.property(fc.dictionary(fc.constantFrom(...Object.keys(optionalMembers.properties), "__proto__"), value, { maxKeys: 6 }), (args) => {
      const before = structuredClone(args);
      dropOptionalNulls(args, optionalMembers);
      expect(onlyNullsRemoved(before, args)).toBe(true);
      const once = structuredClone(args);
      dropOptionalNulls(args, optionalMembers);
      expect(args).toEqual(once);
      expect(Object.getPrototypeOf({})).toBe(Object.prototype);
      expect(({} as JsonSchema).polluted).toBeUndefined();
    }), { numRuns: 300, seed: 8 });
  });
});

function onlyNullsRemoved(before: unknown, after: unknown): boolean {
  if (typeof before !== "object" || before === null) return Object.is(before, after);
  if (Array.isArray(before)) return Array.isArray(after) && before.length === after.length && before.every((item, i) => onlyNullsRemoved(item, after[i]));
  if (typeof after !== "object" || after === null || Array.isArray(after)) return false;
  const a = after as Record<string, unknown>;
  return Object.entries(before).every(([key, item]) => (Object.hasOwn(a, key) ? onlyNullsRemoved(item, a[key]) : item === null)) && Object.keys(a).every((key) => Object.hasOwn(before, key));
}
