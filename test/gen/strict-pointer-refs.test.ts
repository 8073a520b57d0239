/**
 * The strict converter reads a `$ref` as a JSON Pointer into the parameters (RFC 6901 in a URI fragment):
 * whatever the names on the way and however the pointer is escaped, a `$ref` into a definition's member
 * gets a strict form that OpenAI's dialect accepts and that means what the lenient schema means.
 */
import Ajv from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toStrictParameters } from "../../src/shared/dialects/strict-parameters.js";
import type { JsonSchema, ParametersSchema } from "../../src/shared/schemas-file.js";
import { strictDialectViolations } from "../../src/scripted-server/strict-dialect.js";

const closed = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: "object", properties, required: Object.keys(properties), additionalProperties: false });

/** A pointer segment as RFC 6901 escapes it, then as the fragment may write it: percent-encoded or not. */
function spelled(segment: string, percent: boolean): string {
  const escaped = segment.replaceAll("~", "~0").replaceAll("/", "~1");
  return percent || escaped.includes("%") ? encodeURIComponent(escaped) : escaped;
}

describe("toStrictParameters on a $ref into a definition's inside", () => {
  it("gives the strict form whatever the names and their escapes, accepted by the dialect and meaning the same", () => {
    const name = fc.string({ unit: fc.constantFrom("a", "Z", "/", "~", "%", " ", "é", "0", "1", "."), minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(name, name, fc.boolean(), (definition, member, percent) => {
        const inner = closed({ v: { type: "number" } });
        const parameters: ParametersSchema = {
          ...(closed({
            p: { $ref: `#/${["definitions", definition, "properties", member].map((segment) => spelled(segment, percent)).join("/")}` },
            q: { $ref: `#/definitions/${spelled(definition, percent)}` },
          }) as ParametersSchema),
          definitions: { [definition]: closed({ [member]: inner }) },
        };
        const result = toStrictParameters(parameters);
        if (!result.ok) throw new Error(JSON.stringify(result.problems));
        expect(strictDialectViolations(result.parameters)).toEqual([]);
        const validate = new Ajv({ strict: false }).compile(result.parameters);
        expect(validate({ p: { v: 1 }, q: { [member]: { v: 2 } } })).toBe(true);
        expect(validate({ p: { v: "1" }, q: { [member]: { v: 2 } } })).toBe(false);
        expect(validate({ p: { v: 1 }, q: { [member]: { w: 2 } } })).toBe(false);
      }),
      { numRuns: 200, seed: 5 },
    );
  });

  it("makes one definition per place pointed at, however the refs to it are spelled, and follows recursion through it", () => {
    const kids: JsonSchema = { type: "array", items: { $ref: "#/definitions/tree/properties/kids" } };
    const result = toStrictParameters({
      ...(closed({ a: { $ref: "#/definitions/tree/properties/kids" }, b: { $ref: "#/definitions/tree/properties/k%69ds" } }) as ParametersSchema),
      definitions: { tree: closed({ kids }) },
    });
    expect(result).toEqual({
      ok: true,
      parameters: {
        type: "object",
        properties: { a: { $ref: "#/definitions/tree.properties.kids" }, b: { $ref: "#/definitions/tree.properties.kids" } },
        additionalProperties: false,
        required: ["a", "b"],
        definitions: { "tree.properties.kids": { type: "array", items: { $ref: "#/definitions/tree.properties.kids" } } },
      },
    });
  });

  it("names a made definition apart from a lenient one of the same name, and reads # as the whole parameters", () => {
    const result = toStrictParameters({
      ...(closed({ a: { $ref: "#/definitions/box/properties/size" }, b: { $ref: "#/definitions/box.properties.size" }, self: { $ref: "#" } }) as ParametersSchema),
      required: ["a", "b"],
      definitions: { "box.properties.size": { type: "string" }, box: closed({ size: { type: "number" } }) },
    });
    const self = { anyOf: [{ $ref: "#/definitions/parameters" }, { type: "null" }] };
    const properties = { a: { $ref: "#/definitions/box.properties.size-2" }, b: { $ref: "#/definitions/box.properties.size" }, self };
    expect(result).toEqual({
      ok: true,
      parameters: {
        type: "object",
        properties,
        additionalProperties: false,
        required: ["a", "b", "self"],
        definitions: {
          "box.properties.size": { type: "string" },
          "box.properties.size-2": { type: "number" },
          parameters: { type: "object", properties, additionalProperties: false, required: ["a", "b", "self"] },
        },
      },
    });
  });

  it("says why a $ref that leads nowhere has no strict form: nothing there, or not a pointer into the schema", () => {
    const result = toStrictParameters({
      ...(closed({ a: { $ref: "#/definitions/box/properties/nope" }, b: { $ref: "other.json#/definitions/box" }, c: { $ref: "#/definitions/%E0%A4%A" } }) as ParametersSchema),
      definitions: { box: closed({ size: { type: "number" } }) },
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        { parameter: "a", member: "a", reason: 'refers to "#/definitions/box/properties/nope", which points to nothing in the schema' },
        { parameter: "b", member: "b", reason: 'refers to "other.json#/definitions/box", which is not a JSON Pointer into the schema (#/…)' },
        { parameter: "c", member: "c", reason: 'refers to "#/definitions/%E0%A4%A", which is not a JSON Pointer into the schema (#/…)' },
      ],
    });
  });
});
