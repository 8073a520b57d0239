/**
 * Null-as-absent inside tuples: each position is read with its own schema (2020-12's `prefixItems`,
 * draft-07's `items` list), the positions after them with `items` (2020-12) or `additionalItems`
 * (draft-07), so an optional member of an object there gets the same treatment as inside `items`.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { toJsonSchema2020 } from "../../../src/mcp/json-schema-2020.js";
import { dropOptionalNulls } from "../../../src/runtime/execution/null-as-absent.js";
import type { ParametersSchema } from "../../../src/shared/schemas-file.js";

const point = { type: "object", properties: { x: { type: "number" }, label: { type: "string" } }, required: ["x"] };
/** Its `label` is required: a `null` there is the model's to answer for. */
const labelled = { type: "object", properties: { label: { type: "string" }, note: { type: "string" } }, required: ["label"] };

function dropped(args: Record<string, unknown>, schema: ParametersSchema): Record<string, unknown> {
  dropOptionalNulls(args, schema);
  return args;
}

describe("null for an optional member inside a tuple", () => {
  test("is dropped at a prefixItems position, through a $ref into $defs too", () => {
    const schema: ParametersSchema = {
      type: "object",
      $defs: { pt: point },
      properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { $ref: "#/$defs/pt" }], items: false } },
      required: ["pair"],
    };
    expect(dropped({ pair: ["a", { x: 1, label: null }] }, schema)).toEqual({ pair: ["a", { x: 1 }] });
    expect(dropped({ pair: ["a", { x: null, label: null }] }, schema)).toEqual({ pair: ["a", { x: null }] });
  });

  test("is read with the position's own schema, and with items only after the prefixItems", () => {
    const schema: ParametersSchema = {
      type: "object",
      properties: { rows: { type: "array", prefixItems: [labelled], items: point } },
      required: ["rows"],
    };
    expect(dropped({ rows: [{ label: null, note: null }, { x: 1, label: null }, { x: 2, label: null }] }, schema)).toEqual({
      rows: [{ label: null }, { x: 1 }, { x: 2 }],
    });
  });

  test("draft-07: a position of an items list, then additionalItems", () => {
    const schema: ParametersSchema = {
      type: "object",
      properties: { rows: { type: "array", items: [labelled], additionalItems: { $ref: "#/definitions/pt" } } },
      required: ["rows"],
      definitions: { pt: point },
    };
    expect(dropped({ rows: [{ label: null, note: null }, { x: 1, label: null }] }, schema)).toEqual({ rows: [{ label: null }, { x: 1 }] });
  });

  test("a draft-07 schema and its 2020-12 copy for MCP clients drop exactly the same nulls", () => {
    const draft07: ParametersSchema = {
      type: "object",
      properties: {
        rows: { type: "array", items: [labelled, { $ref: "#/definitions/pt" }], additionalItems: { $ref: "#/definitions/pt" } },
        pair: { type: "array", items: [{ type: "string" }, labelled], minItems: 2, maxItems: 2 },
        nested: { type: "array", items: { type: "array", items: [{ $ref: "#/definitions/pt" }], additionalItems: labelled } },
      },
      required: [],
      definitions: { pt: point },
    };
    const in2020 = toJsonSchema2020(draft07) as ParametersSchema;
    const leaf = fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 2 }));
    const member = fc.dictionary(fc.constantFrom("x", "label", "note", "other"), leaf, { maxKeys: 4 });
    const row = fc.oneof(leaf, member);
    const args = fc.record(
      { rows: fc.array(row, { maxLength: 5 }), pair: fc.array(row, { maxLength: 3 }), nested: fc.array(fc.array(row, { maxLength: 3 }), { maxLength: 3 }) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(args, (value) => {
        const old = structuredClone(value) as Record<string, unknown>;
        const current = structuredClone(value) as Record<string, unknown>;
        dropOptionalNulls(old, draft07);
        dropOptionalNulls(current, in2020);
        expect(current).toEqual(old);
      }),
      { numRuns: 300, seed: 11, examples: [[{ rows: [{ label: "a", note: null }, { x: 1, label: null }, { x: 2, label: null }] }]] },
    );
  });
});
