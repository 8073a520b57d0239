/**
 * Schemas holding one array without `items` at a random depth, for property tests: reached through
 * members, `items`, `additionalProperties`, `anyOf`/`oneOf`/`allOf` branches, `$defs`/`definitions` and
 * `prefixItems` positions, as `type: "array"` or a type list naming it.
 */
import fc from "fast-check";

export interface NestedArray {
  /** The schema, with the array bare. */
  schema: Record<string, unknown>;
  /** The same schema with `items: {}` on that array. */
  withItems: Record<string, unknown>;
  /** OpenAI's context of the array: the keywords and names down to it, then `type` and its index in a type list. */
  context: string[];
}

/** One step from a schema down to the one inside it: the context parts it adds, and the schema around `inner`. */
interface Step {
  parts: readonly string[];
  wrap: (inner: unknown) => Record<string, unknown>;
}
const name = fc.stringMatching(/^[a-z_][a-z0-9_]{0,5}$/);
const index = fc.integer({ min: 0, max: 2 });
const fillers = (count: number) => Array.from({ length: count }, () => ({ type: "string" }));
const step = fc.oneof<fc.Arbitrary<Step>[]>(
  name.map((key) => ({ parts: ["properties", key], wrap: (inner: unknown) => ({ type: "object", properties: { [key]: inner } }) })),
  fc.constant({ parts: ["items"], wrap: (inner: unknown) => ({ type: "array", items: inner }) }),
  fc.constant({ parts: ["additionalProperties"], wrap: (inner: unknown) => ({ type: "object", properties: {}, additionalProperties: inner }) }),
  fc.tuple(fc.constantFrom("anyOf", "oneOf", "allOf"), index).map(([keyword, at]) => ({ parts: [keyword, String(at)], wrap: (inner: unknown) => ({ [keyword]: [...fillers(at), inner] }) })),
  fc.tuple(fc.constantFrom("$defs", "definitions"), name).map(([keyword, key]) => ({ parts: [keyword, key], wrap: (inner: unknown) => ({ type: "object", properties: {}, [keyword]: { [key]: inner } }) })),
  index.map((at) => ({ parts: ["prefixItems", String(at)], wrap: (inner: unknown) => ({ type: "array", items: {}, prefixItems: [...fillers(at), inner] }) })),
);
/** The array without items at the bottom: `type: "array"`, or a type list naming it at some index. */
const leaf = fc.oneof(
  fc.constant({ parts: [] as string[], schema: { type: "array" } as Record<string, unknown> }),
  fc.tuple(fc.subarray(["string", "null", "object"]), index).map(([others, at]) => {
    const types = [...others];
    const position = Math.min(at, types.length);
    types.splice(position, 0, "array");
    return { parts: ["type", String(position)], schema: { type: types } };
  }),
);

export const arrayWithoutItems: fc.Arbitrary<NestedArray> = fc.tuple(fc.array(step, { maxLength: 6 }), leaf).map(([steps, bottom]) => {
  const build = (array: Record<string, unknown>) => steps.reduceRight<Record<string, unknown>>((inner, each) => each.wrap(inner), array);
  return { schema: build(bottom.schema), withItems: build({ ...bottom.schema, items: {} }), context: [...steps.flatMap((each) => each.parts), ...bottom.parts] };
});
