import { describe, expect, it } from "vitest";
import { strictDialectViolations } from "../../src/scripted-server/strict-dialect.js";
import { strictSchemaProblems } from "./strict-dialect.js";

/** A schema that keeps every rule: nullable members, a recursive definition, every supported keyword. */
function valid(): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      name: { type: "string", description: "A name.", pattern: "^a", format: "email" },
      count: { type: ["number", "null"], minimum: 1, maximum: 9, exclusiveMinimum: 0, exclusiveMaximum: 10, multipleOf: 1 },
      tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, minItems: 1, maxItems: 3 },
      kind: { type: "string", const: "k" },
      tree: { anyOf: [{ $ref: "#/definitions/Node" }, { type: "null" }] },
    },
    required: ["name", "count", "tags", "kind", "tree"],
    additionalProperties: false,
    definitions: {
      Node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/definitions/Node" } } }, required: ["kids"], additionalProperties: false },
    },
  };
}

function broken(change: (schema: any) => void): Record<string, unknown> {
  const schema = valid();
  change(schema);
  return schema;
}

function nest(levels: number): Record<string, unknown> {
  return levels === 0 ? { type: "string" } : { type: "object", properties: { x: nest(levels - 1) }, required: ["x"], additionalProperties: false };
}

describe("the strict dialect checker", () => {
  it("accepts a schema that keeps every rule, and so does strict Ajv", () => {
    expect(strictSchemaProblems(valid())).toEqual([]);
  });

  it.each([
    ["a root that is not an object", (s: any) => (s.type = "string"), `schema must be a JSON Schema of 'type: "object"', got 'type: "string"'.`],
    ["anyOf at the root", (s: any) => (s.anyOf = [{ type: "object", properties: {}, required: [], additionalProperties: false }]), "In context=(), 'anyOf' is not permitted at the root."],
    ["an object without additionalProperties: false", (s: any) => delete s.additionalProperties, "In context=(), 'additionalProperties' is required to be supplied and to be false."],
    ["a nested open object", (s: any) => (s.definitions.Node.additionalProperties = { type: "string" }), "In context=('definitions', 'Node'), 'additionalProperties' is required to be supplied and to be false."],
    ["a key missing from required", (s: any) => (s.required = ["name"]), "In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'count'."],
    ["a required key that is not a property", (s: any) => s.required.push("ghost"), "In context=(), Extra required key 'ghost' supplied."],
    ["minLength", (s: any) => (s.properties.name.minLength = 1), "In context=('properties', 'name'), 'minLength' is not permitted."],
    ["default", (s: any) => (s.properties.count.default = 2), "In context=('properties', 'count'), 'default' is not permitted."],
    ["uniqueItems", (s: any) => (s.properties.tags.uniqueItems = true), "In context=('properties', 'tags'), 'uniqueItems' is not permitted."],
    ["oneOf", (s: any) => (s.properties.kind = { oneOf: [{ type: "string" }] }), "In context=('properties', 'kind'), 'oneOf' is not permitted."],
    ["a format it lacks", (s: any) => (s.properties.name.format = "uri"), `In context=('properties', 'name'), 'format' "uri" is not permitted.`],
    ["a tuple", (s: any) => (s.properties.tags.items = [{ type: "string" }]), "In context=('properties', 'tags'), 'items' must be one schema (tuples are not permitted)."],
    ["a $ref with a description", (s: any) => (s.properties.tree = { $ref: "#/definitions/Node", description: "A tree." }), "In context=('properties', 'tree'), $ref cannot have keywords {'description'}."],
    ["a $ref to nothing", (s: any) => (s.properties.tree = { $ref: "#/definitions/Gone" }), "In context=('properties', 'tree'), reference to component '#/definitions/Gone' which was not found in the schema."],
    ["an empty schema (unknown)", (s: any) => (s.properties.name = {}), "In context=('properties', 'name'), schema must have a 'type' key."],
    ["more than 1000 enum values", (s: any) => (s.properties.tags.items.enum = Array.from({ length: 1001 }, (_, i) => `v${i}`)), "Expected at most 1000 enum values in total within a single schema, but received 1001."],
    ["more than 5000 properties", (s: any) => {
      s.properties = Object.fromEntries(Array.from({ length: 5001 }, (_, i) => [`p${i}`, { type: "string" }]));
      s.required = Object.keys(s.properties);
    }, "Expected at most 5000 object properties in total, but received 5002."],
    ["more than 10 levels of objects", (s: any) => (s.properties.name = nest(10)), "Expected at most 10 levels of nesting, but received 11."],
    ["more than 120,000 characters of names and values", (s: any) => (s.properties.kind.const = "é".repeat(119_970)),
      "Expected at most 120000 characters in total in property names, definition names, enum values and const values, but received 120001."],
    ["an enum of more than 250 strings over 15,000 characters", (s: any) => (s.properties.tags.items.enum = Array.from({ length: 251 }, (_, i) => `${i}`.padEnd(60, "z"))),
      "In context=('properties', 'tags', 'items'), Expected at most 15000 characters in total in the values of an enum of more than 250 strings, but received 15060."],
  ])("refuses %s", (_what, change, message) => {
    const schema = broken(change as (schema: any) => void);
    expect(strictDialectViolations(schema)[0]).toBe(message);
  });

  it("allows 120,000 characters of names and values, and 15,000 characters in an enum of 250 strings or in one of numbers", () => {
    expect(strictDialectViolations(broken((s) => (s.properties.kind.const = "é".repeat(119_969))))).toEqual([]);
    expect(strictDialectViolations(broken((s) => (s.properties.tags.items.enum = Array.from({ length: 250 }, (_, i) => `${i}`.padEnd(100, "z")))))).toEqual([]);
    const numbers = Array.from({ length: 800 }, (_, i) => (i + 0.123456789012345) * 1e-300);
    expect(numbers.reduce((sum, value) => sum + JSON.stringify(value).length, 0)).toBeGreaterThan(15_000);
    expect(strictDialectViolations(broken((s) => (s.properties.count.enum = numbers)))).toEqual([]);
  });

  it("allows 10 levels of objects, and recursion through $ref at any depth", () => {
    expect(strictDialectViolations(broken((s) => (s.properties.name = nest(9))))).toEqual([]);
  });
});
