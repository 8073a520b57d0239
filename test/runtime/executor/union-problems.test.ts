/**
 * What the model reads when an argument fails a union: the branch its discriminator names and that
 * branch's problems, the discriminator itself when it names no branch, else the branch with the fewest
 * problems (the first on a tie), through the real validator.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileArguments, createAjv, validateArguments } from "../../../src/runtime/execution/validate-arguments.js";
import type { JsonSchema, ParametersSchema } from "../../../src/shared/schemas-file.js";

const ajv = await createAjv();

const object = (properties: Record<string, JsonSchema>, required = Object.keys(properties)): JsonSchema => ({ type: "object", properties, required, additionalProperties: false });
const literal = (value: string): JsonSchema => ({ type: "string", const: value });

const measure: JsonSchema = {
  anyOf: [
    object({ kind: literal("length"), value: { type: "number" }, unit: { type: "string", enum: ["m", "km"] } }),
    object({ kind: literal("mass"), value: { type: "number" }, unit: { type: "string", enum: ["g", "kg"] } }),
    object({ kind: literal("temperature"), value: { type: "number" }, unit: { type: "string", enum: ["C", "F"] } }),
  ],
};

const point: JsonSchema = {
  anyOf: [object({ x: { type: "number" }, y: { type: "number" } }), object({ lat: { type: "number" }, lon: { type: "number" }, label: { type: "string" } })],
};

function problems(properties: Record<string, JsonSchema>, args: Record<string, unknown>): string[] {
  const schema: ParametersSchema = { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
  const result = validateArguments(compileArguments(ajv, schema), structuredClone(args));
  if (result.ok) throw new Error("expected the arguments to fail");
  return result.problems;
}

describe("a discriminated union", () => {
  it("names the branch by its discriminator's value and lists that branch's problems", () => {
    expect(problems({ measure }, { measure: { kind: "length", value: 3, unit: "C" } })).toEqual(['- measure (kind "length"): unit: expected one of "m", "km", got string "C"']);
    expect(problems({ measure }, { measure: { kind: "mass", unit: "lb", value: "x" } })).toEqual([
      '- measure (kind "mass"): value: expected number, got string "x"',
      '- measure (kind "mass"): unit: expected one of "g", "kg", got string "lb"',
    ]);
    expect(problems({ measure }, { measure: { kind: "temperature", unit: "C" } })).toEqual(['- measure (kind "temperature"): value: missing (required, number)']);
  });

  it("a discriminator value no branch has, or none, is itself the problem, with the allowed values", () => {
    const allowed = '"length", "mass", "temperature"';
    expect(problems({ measure }, { measure: { kind: "volume", value: 1, unit: "l" } })).toEqual([`- measure.kind: expected one of ${allowed}, got string "volume"`]);
    expect(problems({ measure }, { measure: { value: 1 } })).toEqual([`- measure.kind: missing (required, one of ${allowed})`]);
  });

  it("inside an array and nested in another union's branch, the path leads to it", () => {
    const nested: JsonSchema = { anyOf: [object({ type: literal("single"), measure }), object({ type: literal("none") })] };
    expect(problems({ items: { type: "array", items: measure } }, { items: [{ kind: "length", value: 1, unit: "m" }, { kind: "length", value: 1, unit: "mi" }] })).toEqual([
      '- items[1] (kind "length"): unit: expected one of "m", "km", got string "mi"',
    ]);
    expect(problems({ entry: nested }, { entry: { type: "single", measure: { kind: "mass", value: 1, unit: "m" } } })).toEqual([
      '- entry (type "single"): measure (kind "mass"): unit: expected one of "g", "kg", got string "m"',
    ]);
  });
});

describe("a union without a discriminator", () => {
  it("names the branch with the fewest problems, the first written on a tie", () => {
    expect(problems({ point }, { point: { lat: 1, lon: "two", label: "home" } })).toEqual(['- point (as { lat: number; lon: number; label: string }): lon: expected number, got string "two"']);
    expect(problems({ point }, { point: {} })).toEqual(["- point (as { x: number; y: number }): x: missing (required, number)", "- point (as { x: number; y: number }): y: missing (required, number)"]);
  });

  it("a value of no branch's type gets the whole union on one line", () => {
    expect(problems({ point }, { point: 5 })).toEqual(["- point: expected { x: number; y: number } | { lat: number; lon: number; label: string }, got 5"]);
  });
});

it("always names a problem in at most 21 lines, whatever the value", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), (a, b) => {
      let lines: string[];
      try {
        lines = problems({ measure, point }, { measure: a, point: b });
      } catch {
        return;
      }
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.length).toBeLessThanOrEqual(21);
      for (const line of lines) expect(line).toMatch(/^- /);
    }),
  );
});
