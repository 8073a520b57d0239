/**
 * Validation ends within a time bound for any schema gen can write (its types, unions, arrays with
 * `uniqueItems`, template-literal and `@pattern` patterns) and for hostile patterns a forged schemas
 * file may hold, with arguments made to hurt a backtracking engine or a pairwise comparison. Arguments
 * over the documented size are refused unread.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { createToolExecutor, MAX_ARGUMENT_CHARS } from "../../../src/runtime/execution/tool-executor.js";
import type { JsonSchema, ParametersSchema, SchemasFile } from "../../../src/shared/schemas-file.js";
import type { ToolContext } from "../../../src/runtime/loop/types.js";

const context: ToolContext = { workspace: "/w", signal: new AbortController().signal };
/** Generous for a shared 2-core machine: the backtracking cases this guards against took minutes. */
const BOUND_MS = 3_000;

/** The patterns gen writes for template literals (see schema-engine.ts) and for `@pattern`, and hostile ones. */
const HOLES = [String.raw`[\s\S]*`, String.raw`-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?`, String.raw`-?\d+`];
const templatePattern = fc
  .array(fc.tuple(fc.constantFrom(...HOLES), fc.constantFrom("", ":", "-", "ab", ".")), { minLength: 1, maxLength: 4 })
  .map((parts) => `^${parts.map(([hole, text]) => hole + text.replace(/\./g, "\\.")).join("")}$`);
const pattern = fc.oneof(templatePattern, fc.constantFrom("^(a+)+$", "^(a|aa)+$", "(x+x+)+y", "^([a-z]+)*\\d$", "^(?:a*)*b$"));

const leaf: fc.Arbitrary<JsonSchema> = fc.oneof(
  fc.constant<JsonSchema>({ type: "string" }),
  pattern.map((source): JsonSchema => ({ type: "string", pattern: source })),
  fc.constant<JsonSchema>({ type: "number" }),
  fc.constant<JsonSchema>({ type: "integer" }),
  fc.constant<JsonSchema>({ type: "boolean" }),
  fc.constant<JsonSchema>({ type: "string", enum: ["a", "b"] }),
);
const schema: fc.Arbitrary<JsonSchema> = fc.letrec<{ node: JsonSchema }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.tuple(tie("node"), fc.boolean()).map(([items, unique]) => ({ type: "array", items, ...(unique ? { uniqueItems: true } : {}) })),
    fc.dictionary(fc.constantFrom("a", "b", "c"), tie("node"), { minKeys: 1, maxKeys: 3 }).map((properties) => ({
      type: "object", properties, required: Object.keys(properties).slice(0, 1), additionalProperties: false,
    })),
    fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((anyOf) => ({ anyOf })),
  ),
})).node;

/** A value shaped to hurt: long runs of what patterns' holes compete for, long arrays of equal-looking objects. */
function hostileValue(node: JsonSchema, size: number): unknown {
  if (Array.isArray(node.anyOf)) return hostileValue(node.anyOf[0] as JsonSchema, size);
  switch (node.type) {
    case "string":
      return typeof node.pattern === "string" ? `${":".repeat(size / 4)}${"1".repeat(size / 4)}${"a".repeat(size / 2)}!` : "x";
    case "array":
      return Array.from({ length: Math.min(size / 16, 20_000) }, (_, index) => (index % 2 === 0 ? hostileValue(node.items as JsonSchema, 16) : { id: index, name: "row" }));
    case "object":
      return Object.fromEntries(Object.entries(node.properties as Record<string, JsonSchema>).map(([key, value]) => [key, hostileValue(value, size)]));
    default:
      return "1".repeat(size);
  }
}

function executorFor(parameters: ParametersSchema) {
  const schemas: SchemasFile = {
    tools: [{ type: "function", function: { name: "take", description: "", parameters } }],
    bindings: [{ name: "take", file: "tools/take.ts", exportName: "take", call: { kind: "object" } }],
    inputs: { toolsDir: "tools", files: [], hash: "" },
  };
  return createToolExecutor({ schemas, schemasDir: "/nowhere", importModule: async () => ({ take: () => "ran" }) });
}

describe("validation time is bounded", () => {
  test("any schema of gen's vocabulary or a hostile pattern, arguments of up to 256 KiB made to hurt", async () => {
    await fc.assert(
      fc.asyncProperty(schema, fc.constantFrom(4_096, 65_536, 262_144), async (node, size) => {
        const parameters: ParametersSchema = { type: "object", properties: { value: node }, required: ["value"], additionalProperties: false };
        const executor = executorFor(parameters);
        const text = JSON.stringify({ value: hostileValue(node, size) });
        const started = performance.now();
        const outcome = await executor.execute({ id: "c", type: "function", function: { name: "take", arguments: text } }, context);
        expect(["ok", "invalid_arguments"]).toContain(outcome.status);
        expect(performance.now() - started).toBeLessThan(BOUND_MS);
      }),
      { numRuns: 40 },
    );
  }, 240_000);

  test("arguments over the documented size are refused unread, with the size and the limit", async () => {
    const executor = executorFor({ type: "object", properties: { word: { type: "string", pattern: "^(a+)+$" } }, required: [], additionalProperties: false });
    const text = JSON.stringify({ word: "a".repeat(MAX_ARGUMENT_CHARS) });
    const outcome = await executor.execute({ id: "c", type: "function", function: { name: "take", arguments: text } }, context);
    expect(outcome.status).toBe("invalid_arguments");
    expect(outcome.content.split("\n")[0]).toBe(`The arguments for take are ${text.length} characters of JSON, over the limit of 16777216, so they were not read and it was not run.`);
  });
});
