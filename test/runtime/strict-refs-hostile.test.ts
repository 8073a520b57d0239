/**
 * A hostile MCP server's `inputSchema` (or a model's arguments) against the strict dialect's JSON-Pointer
 * `$ref`s and null-as-absent: the conversion stays bounded in time and size whatever the `$ref` graph,
 * never loses a member to `__proto__`, gives names the dialect reads, keeps a tuple's length and
 * positions, refuses `$ref`s that lead only to themselves; and a value the strict form accepts is, once
 * its optional `null`s are read as absent, one the lenient schema accepts.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dropOptionalNulls } from "../../src/runtime/execution/null-as-absent.js";
import { toStrictParameters, type StrictParameters } from "../../src/shared/dialects/strict-parameters.js";
import type { JsonSchema, ParametersSchema } from "../../src/shared/schemas-file.js";
import { strictDialectViolations } from "../../src/scripted-server/strict-dialect.js";

const closed = (properties: Record<string, JsonSchema>, required = Object.keys(properties)): JsonSchema => ({ type: "object", properties, required, additionalProperties: false });
const parameters = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}, required = Object.keys(properties)): ParametersSchema =>
  ({ ...closed(properties, required), ...extra }) as ParametersSchema;

function strictForm(schema: ParametersSchema): ParametersSchema {
  const result = toStrictParameters(schema);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  expect(strictDialectViolations(result.parameters)).toEqual([]);
  return result.parameters;
}

function timed(run: () => StrictParameters): { result: StrictParameters; ms: number } {
  const start = performance.now();
  const result = run();
  return { result, ms: performance.now() - start };
}

/** `d0` … `d<n-1>`, each a union of two `$ref`s to the next: 2^n routes to `d<n>`. */
function doublingChain(n: number, last: JsonSchema): Record<string, JsonSchema> {
  const definitions: Record<string, JsonSchema> = {};
  for (let i = 0; i < n; i++) definitions[`d${i}`] = { anyOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] };
  definitions[`d${n}`] = last;
  return definitions;
}

describe("strict conversion of $ref graphs a server chose", () => {
  it("reads an optional member's union of many routes in linear time (was 2^n: 18 s at n = 22)", () => {
    const { result, ms } = timed(() => toStrictParameters(parameters({ a: { $ref: "#/definitions/d0" } }, { definitions: doublingChain(40, { type: "string" }) }, [])));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.parameters.properties.a).toEqual({ anyOf: [{ $ref: "#/definitions/d0" }, { type: "null" }] });
    expect(ms).toBeLessThan(2000);
  });

  it("measures the nesting depth of a union of many routes in linear time (was 2^n: 13 s at n = 22)", () => {
    const { result, ms } = timed(() => toStrictParameters(parameters({ a: { $ref: "#/definitions/d0" } }, { definitions: doublingChain(40, closed({ x: { type: "string" } })) })));
    expect(result.ok).toBe(true);
    if (result.ok) expect(Object.keys(result.parameters.definitions ?? {})).toHaveLength(41);
    expect(ms).toBeLessThan(2000);
  });

  it("refuses, in bounded time, recursion reached along too many routes to measure", () => {
    const definitions = doublingChain(40, closed({ x: { $ref: "#/definitions/d0" } }));
    const { result, ms } = timed(() => toStrictParameters(parameters({ a: { $ref: "#/definitions/d0" } }, { definitions })));
    expect(result).toEqual({
      ok: false,
      problems: [{ reason: "have $refs that lead along too many paths to measure how deep their objects nest; strict mode allows 10 levels" }],
    });
    expect(ms).toBeLessThan(5000);
  });

  it("refuses $refs that lead only back to themselves (was a strict form of bare $ref cycles, which Ajv cannot compile)", () => {
    expect(toStrictParameters(parameters({ a: { $ref: "#/properties/b" }, b: { $ref: "#/properties/a" } }))).toEqual({
      ok: false,
      problems: [
        { parameter: "a", member: "a", reason: 'refers to "#/definitions/properties.b", whose $refs lead only back to themselves, so it describes no value' },
        { parameter: "b", member: "b", reason: 'refers to "#/definitions/properties.a", whose $refs lead only back to themselves, so it describes no value' },
      ],
    });
    expect(toStrictParameters(parameters({ a: { $ref: "#/definitions/x" } }, { definitions: { x: { $ref: "#/definitions/x" } } }))).toEqual({
      ok: false,
      problems: [{ parameter: "a", member: "a", reason: 'refers to "#/definitions/x", whose $refs lead only back to themselves, so it describes no value' }],
    });
  });

  it("keeps recursion through a pointer and through # as recursion", () => {
    const root = parameters({ n: { type: "string" }, next: { $ref: "#" } }, {}, ["n"]);
    const recursive = { type: "object", properties: { n: { type: "string" }, next: { anyOf: [{ $ref: "#/definitions/parameters" }, { type: "null" }] } }, additionalProperties: false, required: ["n", "next"] };
    expect(strictForm(root)).toEqual({ ...recursive, definitions: { parameters: recursive } });
  });

  it("does not copy a large definition into each described $ref to it (was 36 MB from 1000 refs to a 1000-branch union)", () => {
    const big = { anyOf: Array.from({ length: 1000 }, (_, i) => ({ type: "string", pattern: `^${i}$` })) };
    const properties: Record<string, JsonSchema> = {};
    for (let i = 0; i < 1000; i++) properties[`p${i}`] = { $ref: "#/definitions/big", description: `d${i}` };
    const strict = strictForm(parameters(properties, { definitions: { big } }));
    expect(strict.properties.p7).toEqual({ description: "d7", anyOf: [{ $ref: "#/definitions/big" }] });
    expect(JSON.stringify(strict).length).toBeLessThan(200_000);
    // A small definition is still copied, as OpenAI's SDK does.
    expect(strictForm(parameters({ p: { $ref: "#/definitions/s", description: "P" } }, { definitions: { s: { type: "string", description: "S" } } })).properties.p)
      .toEqual({ type: "string", description: "P" });
  });
});

describe("strict conversion of names a server chose", () => {
  it("renames a definition called __proto__ instead of losing it (was a $ref to a definition the strict form lacked)", () => {
    const schema = JSON.parse('{"type":"object","definitions":{"__proto__":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/__proto__"}},"required":["a"],"additionalProperties":false}') as ParametersSchema;
    expect(strictForm(schema)).toEqual({
      type: "object",
      properties: { a: { $ref: "#/definitions/__proto__-2" } },
      additionalProperties: false,
      required: ["a"],
      definitions: { "__proto__-2": { type: "string" } },
    });
    expect(Object.getPrototypeOf(schema.definitions)).toBe(Object.prototype);
  });

  it("keeps a tool lenient when a member is called __proto__ (was a strict form without that member, required or not)", () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"o":{"type":"object","properties":{"__proto__":{"type":"number"}},"additionalProperties":false}},"required":["__proto__"]}') as ParametersSchema;
    const reason = "is named __proto__, which a JavaScript object cannot carry as a member, so its strict form would lose it";
    expect(toStrictParameters(schema)).toEqual({ ok: false, problems: [{ parameter: "__proto__", member: "__proto__", reason }, { parameter: "o", member: "o.__proto__", reason }] });
  });

  it("keeps a const object's __proto__ key (was const: {}, which accepts what the lenient schema refuses)", () => {
    const schema = JSON.parse('{"type":"object","properties":{"c":{"type":"object","const":{"__proto__":{"x":1}},"properties":{},"additionalProperties":false}},"required":["c"]}') as ParametersSchema;
    expect(JSON.stringify(strictForm(schema).properties.c)).toBe('{"type":"object","const":{"__proto__":{"x":1}},"properties":{},"additionalProperties":false,"required":[]}');
  });

  it("renames a definition with an empty name, which the dialect cannot read as written (was #/definitions/)", () => {
    expect(strictForm(parameters({ a: { $ref: "#/definitions/" } }, { definitions: { "": { type: "string" } } }))).toEqual({
      type: "object",
      properties: { a: { $ref: "#/definitions/_" } },
      additionalProperties: false,
      required: ["a"],
      definitions: { _: { type: "string" } },
    });
  });

  it("gives a pointer into a definitions array a name of its own (was one name for two places: a number read as a string)", () => {
    const schema = parameters({ a: { $ref: "#/definitions/0" }, b: { $ref: "#/$defs/0" } }, { definitions: [{ type: "string" }], $defs: { "0": { type: "number" } } });
    expect(strictForm(schema)).toEqual({
      type: "object",
      properties: { a: { $ref: "#/definitions/0" }, b: { $ref: "#/definitions/0-2" } },
      additionalProperties: false,
      required: ["a", "b"],
      definitions: { "0": { type: "string" }, "0-2": { type: "number" } },
    });
  });

  it("names made definitions apart from a definition called parameters and from each other after the _ replacement", () => {
    const schema = parameters({ a: { $ref: "#" }, b: { $ref: "#/definitions/parameters" }, "x y": { type: "number" }, x_y: { type: "string" }, c: { $ref: "#/properties/x y" }, d: { $ref: "#/properties/x_y" } }, { definitions: { parameters: { type: "boolean" } } }, ["b", "x y", "x_y", "c", "d"]);
    const strict = strictForm(schema);
    const definitions = strict.definitions as Record<string, JsonSchema>;
    expect(Object.keys(definitions)).toEqual(["parameters", "parameters-2", "properties.x_y", "properties.x_y-2"]);
    expect(definitions["properties.x_y"]).toEqual({ type: "number" });
    expect(definitions["properties.x_y-2"]).toEqual({ type: "string" });
  });
});

describe("strict form of a 2020-12 tuple", () => {
  it("is an array of its positions' types, items: false capping its length (was any array, the positions in words as JSON)", () => {
    expect(strictForm(parameters({ pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false } })).properties.pair).toEqual({
      type: "array",
      description: "Items in this order: string, number.",
      items: { anyOf: [{ type: "string" }, { type: "number" }] },
      maxItems: 2,
    });
    // Without items OpenAI refuses the schema, strict or not (was `{ type: "array", maxItems: 0 }`): no strict form.
    expect(toStrictParameters(parameters({ none: { type: "array", items: false } }))).toMatchObject({ ok: false, problems: [{ parameter: "none", reason: expect.stringContaining("is an array without items") }] });
    expect(strictForm(parameters({ one: { type: "array", prefixItems: [{ type: "string" }, false] } })).properties.one).toEqual({ type: "array", items: { type: "string" }, maxItems: 1 });
  });

  it("lets items after the positions join the union (was every element checked against items alone, the positions' types refused)", () => {
    expect(strictForm(parameters({ row: { type: "array", prefixItems: [{ type: "string" }], items: { type: "number" }, maxItems: 5 } })).properties.row).toEqual({
      type: "array",
      description: "Items in this order: string, then any number of number.",
      items: { anyOf: [{ type: "string" }, { type: "number" }] },
      maxItems: 5,
    });
  });
});

describe("null for an optional member under unions a model's arguments meet", () => {
  const point = { type: "object", properties: { x: { type: "number" }, label: { type: "string" } }, required: ["x"] };

  it("reads a union that leads back to itself without overflowing the stack (was RangeError)", () => {
    const schema = parameters({ a: { $ref: "#/definitions/u" } }, { definitions: { u: { anyOf: [{ $ref: "#/definitions/u" }, point] } } }, []);
    const args = { a: { x: 1, label: null } };
    dropOptionalNulls(args, schema);
    expect(args).toEqual({ a: { x: 1 } });
    const selfOnly = parameters({ a: { anyOf: [{ $ref: "#/properties/a" }] } }, {}, []);
    const untouched = { a: { x: null } };
    dropOptionalNulls(untouched, selfOnly);
    expect(untouched).toEqual({ a: { x: null } });
  });

  it("reads nested unions as one: two fitting alternatives inside leave the null alone (was the outer branch chosen)", () => {
    const nullRequired = { type: "object", properties: { m: { type: "null" } }, required: ["m"] };
    const schema = parameters({ a: { anyOf: [{ anyOf: [nullRequired, { ...nullRequired, description: "other" }] }, { type: "object", properties: { m: { type: "string" } } }] } }, {}, []);
    const args = { a: { m: null } };
    dropOptionalNulls(args, schema);
    expect(args).toEqual({ a: { m: null } });
  });

  it("reads one alternative reached along two routes as one, inside a nested tuple too", () => {
    const schema = parameters({ t: { type: "array", prefixItems: [{ anyOf: [{ $ref: "#/definitions/p" }, { type: "array", prefixItems: [{ anyOf: [{ $ref: "#/definitions/p" }, { $ref: "#/definitions/q" }] }] }] }] } }, { definitions: { p: point, q: { $ref: "#/definitions/p" } } }, []);
    const args = { t: [[{ x: 1, label: null }]] };
    dropOptionalNulls(args, schema);
    expect(args).toEqual({ t: [[{ x: 1 }]] });
  });

  it("takes linear time over a union of many routes (was 2^n)", () => {
    const schema = parameters({ a: { $ref: "#/definitions/d0" } }, { definitions: doublingChain(40, point) }, []);
    const args = { a: { x: 1, label: null } };
    const start = performance.now();
    dropOptionalNulls(args, schema);
    expect(performance.now() - start).toBeLessThan(1000);
    expect(args).toEqual({ a: { x: 1 } });
  });
});

/** Lenient schemas over a small vocabulary whose strict form means the same but for what the dialect says in words. */
const names = ["p", "q", "r"] as const;
const refs = ["#/definitions/A", "#/definitions/B", "#/definitions/A/properties/p", "#/definitions/B/anyOf/0", "#/$defs/C", "#/definitions/A/properties/q/prefixItems/0", "#"];
const leaf = fc.constantFrom<JsonSchema>(
  { type: "string" }, { type: "string", pattern: "^a" }, { type: "number", minimum: 0 }, { type: "integer" }, { type: "boolean" }, { type: "null" },
  { enum: ["a", "b", null] }, { const: "a" }, { type: ["string", "null"] }, { type: "number", maximum: 1, exclusiveMinimum: -1 },
);
const schemaArb: fc.Arbitrary<JsonSchema> = fc.letrec<{ node: JsonSchema }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.constantFrom(...refs).map((ref): JsonSchema => ({ $ref: ref })),
    fc.record({ props: fc.uniqueArray(fc.constantFrom(...names), { maxLength: 3 }), schemas: fc.array(tie("node"), { minLength: 3, maxLength: 3 }), required: fc.subarray([...names]) })
      .map(({ props, schemas, required }) => closed(Object.fromEntries(props.map((name, i) => [name, schemas[i]!])), required.filter((name) => props.includes(name)))),
    fc.record({ items: tie("node"), maxItems: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }) })
      .map(({ items, maxItems }): JsonSchema => ({ type: "array", items, ...(maxItems !== undefined ? { maxItems } : {}) })),
    // Positions of one schema: a tuple's order is said in words only, so positions of different schemas would mean more.
    fc.record({ position: tie("node"), count: fc.integer({ min: 1, max: 3 }), rest: fc.constantFrom<"false" | "same" | "absent">("false", "same", "absent") })
      .map(({ position, count, rest }): JsonSchema => ({ type: "array", prefixItems: Array.from({ length: count }, () => position), ...(rest === "false" ? { items: false } : rest === "same" ? { items: position } : {}) })),
    fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((anyOf): JsonSchema => ({ anyOf })),
    // One branch only: exclusivity is the lenient schema's to check (the strict form's `anyOf` cannot say it).
    tie("node").map((branch): JsonSchema => ({ oneOf: [branch] })),
  ),
})).node;

/** Values shaped after a strict schema (mostly accepted by it: every member, a null where it admits one). */
function shapedAfter(schema: JsonSchema, root: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  if (typeof schema.$ref === "string") {
    const name = decodeURIComponent(schema.$ref.slice("#/definitions/".length));
    const definitions = root.definitions as Record<string, JsonSchema>;
    return shapedAfter(definitions[name]!, root, depth + 1);
  }
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as JsonSchema[]).map((branch) => shapedAfter(branch, root, depth + 1)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if ("const" in schema) return fc.constant(schema.const);
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case "object": {
          const properties = schema.properties as Record<string, JsonSchema>;
          return fc.record(Object.fromEntries(Object.entries(properties).map(([name, member]) => [name, shapedAfter(member, root, depth + 1)])));
        }
        case "array":
          return fc.array(schema.items !== undefined ? shapedAfter(schema.items as JsonSchema, root, depth + 1) : fc.constant(0), { maxLength: 4 });
        case "string":
          return fc.constantFrom("a", "ab", "b", "");
        case "number":
          return fc.constantFrom(-1, 0, 0.5, 2);
        case "integer":
          return fc.constantFrom(-1, 0, 2);
        case "boolean":
          return fc.boolean();
        default:
          return fc.constant(null);
      }
    }),
  );
}

function stackSafe(validate: () => boolean): boolean {
  try {
    return validate();
  } catch (error) {
    if (error instanceof RangeError) return false;
    throw error;
  }
}

describe("strict form against the lenient schema, for random schemas and values", () => {
  it("never accepts a value the lenient schema refuses once its optional nulls are read as absent, and keeps the dialect", () => {
    const lenientArb = fc.record({ a: schemaArb, b: schemaArb, c: schemaArb, top: schemaArb, optionalTop: fc.boolean() }).map(({ a, b, c, top, optionalTop }) =>
      parameters({ p: top, q: { $ref: "#/definitions/A" } }, { definitions: { A: closed({ p: a, q: { type: "array", prefixItems: [b] } }, ["q"]), B: { anyOf: [b, c] } }, $defs: { C: c } }, optionalTop ? ["q"] : ["p", "q"]),
    );
    let compared = 0;
    fc.assert(
      fc.property(lenientArb, fc.integer(), (lenient, seed) => {
        const converted = toStrictParameters(lenient);
        if (!converted.ok) return;
        const strict = converted.parameters;
        expect(strictDialectViolations(strict)).toEqual([]);
        let validateLenient: ReturnType<Ajv2020["compile"]>;
        try {
          validateLenient = new Ajv2020({ strict: false }).compile(lenient);
        } catch {
          return; // a schema Ajv cannot compile never reaches a call
        }
        const validateStrict = new Ajv2020({ strict: false }).compile(strict);
        for (const value of fc.sample(shapedAfter(strict, strict), { numRuns: 20, seed })) {
          // A union that leads back to itself before anything else overflows Ajv's stack (the executor says so).
          if (!stackSafe(() => validateStrict(value))) continue;
          compared += 1;
          const args = structuredClone(value) as Record<string, unknown>;
          dropOptionalNulls(args, lenient);
          if (!stackSafe(() => validateLenient(args))) throw new Error(`strict accepts ${JSON.stringify(value)}, lenient refuses ${JSON.stringify(args)}: ${JSON.stringify(validateLenient.errors)}`);
        }
      }),
      { numRuns: 300 },
    );
    expect(compared).toBeGreaterThan(500);
  });
});
