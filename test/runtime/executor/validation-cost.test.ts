/**
 * The static cost bound: small for the shapes gen writes (named, recursive, union types), `Infinity` for
 * every way a schema can make Ajv's work per value grow with the argument or explode with the schema.
 */
import { describe, expect, test } from "vitest";
import { MAX_VALIDATION_COST, validationCost } from "../../../src/runtime/execution/validation-cost.js";
import type { JsonSchema } from "../../../src/shared/schemas-file.js";

function parameters(value: JsonSchema, definitions: JsonSchema = {}): JsonSchema {
  return { type: "object", properties: { value }, required: ["value"], additionalProperties: false, definitions };
}
const ref = (name: string): JsonSchema => ({ $ref: `#/definitions/${name}` });

describe("validationCost", () => {
  test.each<[string, JsonSchema, number]>([
    ["a string", parameters({ type: "string" }), 3],
    ["a tree", parameters(ref("Tree"), { Tree: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: ref("Tree") } }, required: ["name"] } }), 5],
    ["a JSON value", parameters(ref("Json"), { Json: { anyOf: [{ type: "string" }, { type: "array", items: ref("Json") }, { type: "object", additionalProperties: ref("Json") }] } }), 7],
    ["a tuple", parameters({ type: "array", items: [{ type: "string" }, { type: "number" }], minItems: 2, maxItems: 2 }), 3],
  ])("%s has a small bound", (_label, schema, cost) => {
    expect(validationCost(schema)).toBe(cost);
  });

  const overlapping = { type: "object", properties: { next: ref("T") } };
  const diamond: JsonSchema = Object.fromEntries(
    Array.from({ length: 40 }, (_, level): [string, JsonSchema] => [`D${level}`, level === 39 ? { type: "string" } : { anyOf: [ref(`D${level + 1}`), ref(`D${level + 1}`)] }]),
  );
  test.each<[string, JsonSchema]>([
    ["recursive branches that overlap", parameters(ref("T"), { T: { anyOf: [overlapping, overlapping] } })],
    ["oneOf, overlapping through different keywords", parameters(ref("T"), { T: { oneOf: [{ properties: { a: ref("T") } }, { additionalProperties: ref("T") }] } })],
    ["recursion through uniqueItems (each level canonicalizes the rest)", parameters(ref("T"), { T: { type: "array", uniqueItems: true, items: ref("T") } })],
    ["a chain of 40 definitions each referring twice to the next", parameters(ref("D0"), diamond)],
    ["a union of 20,000 branches", parameters({ anyOf: Array.from({ length: 20_000 }, () => ({ type: "string" })) })],
    ["a $ref that loops without descending", parameters(ref("L"), { L: { allOf: [ref("L")] } })],
    ["a $ref to another document", parameters({ $ref: "other.json#/x" })],
    ["a $ref to nothing", parameters(ref("Missing"))],
    ["an $id below the root, which moves what #/… means", parameters({ $id: "inner", type: "string" })],
  ])("%s is unbounded", (_label, schema) => {
    expect(validationCost(schema)).toBe(Infinity);
  });

  test("a property named id is an ordinary property, not a base", () => {
    expect(validationCost(parameters({ type: "object", properties: { id: { type: "string" } } }))).toBeLessThan(MAX_VALIDATION_COST);
  });
});
