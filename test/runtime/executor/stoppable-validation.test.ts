/**
 * For any schema a forged schemas file may hold in the space that makes Ajv's work grow without bound
 * (recursive definitions whose `anyOf`/`oneOf` branches lead back through `$ref`, overlapping or not) and
 * any argument, a call ends within its time limit plus slack, with a result or a clear message, and the
 * main thread stays free meanwhile. For gen's vocabulary (its types, unions, arrays, named and recursive
 * types) the cost bound keeps validation in process, and the worker, when used, gives the very same
 * outcome.
 */
import fc from "fast-check";
import { Ajv } from "ajv";
import { describe, expect, test } from "vitest";
import { checkArguments, type ArgumentCheck } from "../../../src/runtime/execution/check-arguments.js";
import { createToolExecutor } from "../../../src/runtime/execution/tool-executor.js";
import { validationTimeoutMessage } from "../../../src/runtime/execution/tool-messages.js";
import { compileArguments, createAjv } from "../../../src/runtime/execution/validate-arguments.js";
import { MAX_VALIDATION_COST, validationCost } from "../../../src/runtime/execution/validation-cost.js";
import type { JsonSchema, ParametersSchema, SchemasFile } from "../../../src/shared/schemas-file.js";
import type { ToolContext } from "../../../src/runtime/loop/types.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { generatedSchemasText } from "../../cli/support.js";
import { fixtureSchemas } from "../../fixtures/executor/schemas.js";
import { mcpFixtureTools, projectRoot } from "../../mcp/support.js";

const LIMIT_MS = 1_500;
/** A worker started from the sources on a loaded 2-core machine: its start-up is not counted in the limit. */
const SLACK_MS = 12_000;
const context: ToolContext = { workspace: "/w", signal: new AbortController().signal };

const ref = (index: number): JsonSchema => ({ $ref: `#/definitions/D${index}` });
const forgedLeaf: fc.Arbitrary<JsonSchema> = fc.constantFrom<JsonSchema>({ type: "number" }, { type: "string" }, {}, { type: "object" });
/** A branch that descends into the argument and comes back to a definition, or a leaf. */
const forgedBranch: fc.Arbitrary<JsonSchema> = fc.oneof(
  fc.tuple(fc.constantFrom("a", "b"), fc.nat(2)).map(([key, target]): JsonSchema => ({ type: "object", properties: { [key]: ref(target) } })),
  fc.nat(2).map((target): JsonSchema => ({ type: "array", items: ref(target) })),
  fc.nat(2).map((target): JsonSchema => ({ type: "object", additionalProperties: ref(target) })),
  forgedLeaf,
);
const forgedDefinition: fc.Arbitrary<JsonSchema> = fc
  .tuple(fc.constantFrom("anyOf", "oneOf"), fc.array(forgedBranch, { minLength: 2, maxLength: 3 }))
  .map(([keyword, branches]) => ({ [keyword]: branches }));
/** Two branches that both lead back at the same key: Ajv's work doubles at each level of `{"a": {"a": …}}`. */
const overlapping: fc.Arbitrary<JsonSchema> = fc.tuple(fc.constantFrom("anyOf", "oneOf"), fc.array(forgedBranch, { maxLength: 1 })).map(([keyword, more]) => {
  const back: JsonSchema = { type: "object", properties: { a: ref(0) } };
  return { [keyword]: [back, back, ...more] };
});
const forgedParameters: fc.Arbitrary<ParametersSchema> = fc.tuple(fc.oneof(forgedDefinition, overlapping), forgedDefinition, forgedDefinition).map((definitions) => ({
  type: "object",
  properties: { value: ref(0) },
  required: ["value"],
  definitions: Object.fromEntries(definitions.map((definition, index) => [`D${index}`, definition])),
}));

/** Nested objects and arrays of the keys the forged schemas use, up to 28 levels: small, but deep. */
const deepArgument: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.oneof(fc.array(fc.constantFrom("a", "b", "c", "[]"), { minLength: 1, maxLength: 28 }), fc.constant(Array.from({ length: 28 }, () => "a"))),
    fc.constantFrom<unknown>(1, "x", {}, [], null),
  )
  .map(([path, bottom]) => path.reduceRight<unknown>((inner, step) => (step === "[]" ? [inner, inner] : { [step]: inner }), bottom));

function executorFor(parameters: ParametersSchema) {
  const schemas: SchemasFile = {
    tools: [{ type: "function", function: { name: "take", description: "", parameters } }],
    bindings: [{ name: "take", file: "tools/take.ts", exportName: "take", call: { kind: "object" } }],
    inputs: { toolsDir: "tools", files: [], hash: "" },
  };
  return createToolExecutor({ schemas, schemasDir: "/nowhere", timeoutMs: LIMIT_MS, importModule: async () => ({ take: () => "ran" }) });
}

/** The longest the main thread went without running a timer while `work` ran. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(tick);
  }
  return Math.max(longest, performance.now() - last);
}

describe("validation is stoppable whatever the schema", () => {
  test("forged recursive unions: every call ends within the limit plus slack, and the main thread stays free", async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(forgedParameters, deepArgument, async (parameters, value) => {
        const executor = executorFor(parameters);
        const started = performance.now();
        let status = "";
        let content = "";
        const stall = await longestStall(async () => {
          ({ status, content } = await executor.execute({ id: "c", type: "function", function: { name: "take", arguments: JSON.stringify({ value }) } }, context));
        });
        expect(["ok", "invalid_arguments", "timeout"]).toContain(status);
        seen.add(status);
        if (status === "timeout") expect(content).toBe(validationTimeoutMessage("take", LIMIT_MS));
        expect(performance.now() - started).toBeLessThan(LIMIT_MS + SLACK_MS);
        expect(stall).toBeLessThan(2_000);
      }),
      { numRuns: 25 },
    );
    // Both ends were reached: calls that validated, and calls stopped at the limit.
    expect(seen.has("timeout") && (seen.has("ok") || seen.has("invalid_arguments"))).toBe(true);
  }, 600_000);
});

const genLeaf: fc.Arbitrary<JsonSchema> = fc.constantFrom<JsonSchema>(
  { type: "string" },
  { type: "number" },
  { type: "integer" },
  { type: "boolean" },
  { type: "null" },
  { type: "string", enum: ["a", "b"] },
  { type: "string", const: "circle" },
  { $ref: "#/definitions/Tree" },
  { $ref: "#/definitions/Json" },
);
const genSchema: fc.Arbitrary<JsonSchema> = fc.letrec<{ node: JsonSchema }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    genLeaf,
    fc.tuple(tie("node"), fc.boolean()).map(([items, unique]) => ({ type: "array", items, ...(unique ? { uniqueItems: true } : {}) })),
    fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((items) => ({ type: "array", items, minItems: items.length, maxItems: items.length })),
    fc.dictionary(fc.constantFrom("a", "b", "c"), tie("node"), { minKeys: 1, maxKeys: 3 }).map((properties) => ({
      type: "object", properties, required: Object.keys(properties).slice(0, 1), additionalProperties: false,
    })),
    fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((anyOf) => ({ anyOf })),
  ),
})).node;
/** The named types gen writes as definitions: a tree, and a JSON value (`unknown`-like unions). */
const GEN_DEFINITIONS: JsonSchema = {
  Tree: {
    type: "object",
    properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/definitions/Tree" } } },
    required: ["name"],
    additionalProperties: false,
  },
  Json: {
    anyOf: [
      { type: "string" }, { type: "number" }, { type: "boolean" }, { type: "null" },
      { type: "array", items: { $ref: "#/definitions/Json" } },
      { type: "object", additionalProperties: { $ref: "#/definitions/Json" } },
    ],
  },
};

describe("gen's vocabulary stays in process", () => {
  test("every schema gen writes for this repository's tools and the test fixtures has a small bound", () => {
    const files: SchemasFile[] = [
      JSON.parse(readFileSync(path.join(projectRoot, "generated/schemas.json"), "utf8")) as SchemasFile,
      fixtureSchemas,
      ...[path.join(projectRoot, "test/fixtures/gen/types"), mcpFixtureTools].map((folder) => JSON.parse(generatedSchemasText(folder, path.join(folder, "..", "schemas.json"))) as SchemasFile),
    ];
    const costs = files.flatMap((file) => file.tools.map((tool) => [tool.function.name, validationCost(tool.function.parameters)] as const));
    expect(costs.length).toBeGreaterThan(30);
    // In process up to 256 KiB of arguments: 32 × 262,144 is the in-process budget.
    expect(costs.filter(([, cost]) => !(cost <= 32))).toEqual([]);
  }, 120_000);


  test("its cost is bounded, and the worker's outcome equals the in-process one, whose verdict is Ajv's", async () => {
    const ajv = await createAjv();
    const plain = new Ajv({ allErrors: true, strict: false });
    await fc.assert(
      fc.asyncProperty(genSchema, fc.jsonValue({ maxDepth: 4 }), async (node, value) => {
        const parameters: ParametersSchema = { type: "object", properties: { value: node }, required: ["value"], additionalProperties: false, definitions: GEN_DEFINITIONS };
        const cost = validationCost(parameters);
        expect(cost).toBeLessThanOrEqual(MAX_VALIDATION_COST);
        const validate = compileArguments(ajv, parameters);
        const text = JSON.stringify({ value });
        const check = (where: number): ArgumentCheck => ({
          name: "take",
          text,
          schema: parameters,
          validator: async () => ({ ok: true, validate, cost: where }),
          schemaFailed: () => ({ status: "tool_error", content: "schema failed" }),
          stoppable: { dialect: "draft-07", timeoutMs: 60_000, signal: context.signal },
        });
        const inProcess = await checkArguments(check(cost));
        expect(await checkArguments(check(Infinity))).toEqual(inProcess);
        // Repairs aside (a "5" read as 5), what passes is what Ajv itself accepts.
        const verdict = plain.validate(parameters, inProcess.ok ? inProcess.args : { value });
        if (inProcess.ok) expect(verdict).toBe(true);
        else if (inProcess.outcome.content.includes("do not match")) expect(verdict).toBe(false);
      }),
      { numRuns: 60 },
    );
  }, 300_000);
});
