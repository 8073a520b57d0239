/**
 * The schemas an MCP client gets are JSON Schema 2020-12: `$schema`, `$defs`, `prefixItems`, `anyOf` for
 * "one type or null"; they compile with Ajv's 2020-12 class in strict mode and accept exactly what the
 * schemas file's draft-07 form accepts (fast-check over arbitrary JSON and values near each schema).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAjv2020, toJsonSchema2020 } from "../../src/mcp/json-schema-2020.js";
import { createAjv } from "../../src/runtime/execution/validate-arguments.js";
import type { JsonSchema } from "../../src/shared/schemas-file.js";
import { generatedSchemasText, projectRoot, tempDir } from "../cli/support.js";

describe("the conversion", () => {
  it("definitions become $defs with their refs, tuples prefixItems, a nullable type anyOf, data stays data", () => {
    const draft07: JsonSchema = {
      type: "object",
      properties: {
        tree: { $ref: "#/definitions/Tree" },
        pair: { type: "array", items: [{ type: "string" }, { type: "number" }], minItems: 2, maxItems: 2 },
        note: { type: ["string", "null"], description: "A note.", minLength: 1 },
        mode: { type: ["string", "null"], enum: ["a", "b", null] },
        when: { type: "string", default: { definitions: 1 }, enum: ["x"] },
      },
      required: ["tree"],
      additionalProperties: false,
      definitions: { Tree: { type: "object", properties: { children: { type: "array", items: { $ref: "#/definitions/Tree" } } }, additionalProperties: false } },
    };
    expect(toJsonSchema2020(draft07)).toStrictEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        tree: { $ref: "#/$defs/Tree" },
        pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], minItems: 2, maxItems: 2 },
        note: { description: "A note.", anyOf: [{ type: "string", minLength: 1 }, { type: "null" }] },
        mode: { anyOf: [{ type: "string", enum: ["a", "b"] }, { type: "null" }] },
        when: { type: "string", default: { definitions: 1 }, enum: ["x"] },
      },
      required: ["tree"],
      additionalProperties: false,
      $defs: { Tree: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Tree" } } }, additionalProperties: false } },
    });
  });
});

describe("every schema gen writes", () => {
  const file = path.join(tempDir(), "schemas.json");
  const generated = JSON.parse(generatedSchemasText(path.join(projectRoot, "test/fixtures/gen/types"), file)) as {
    tools: Array<{ function: { name: string; parameters: JsonSchema } }>;
    outputs?: Record<string, JsonSchema>;
  };
  const schemas = [...generated.tools.map((tool) => tool.function.parameters), ...Object.values(generated.outputs ?? {})];

  it("compiles in Ajv's 2020-12 class, strict mode, and has no draft-07 keyword left", () => {
    const strict = addFormats(new Ajv2020({ strict: true, allErrors: true }));
    expect(schemas.length).toBeGreaterThan(20);
    for (const schema of schemas) {
      const served = toJsonSchema2020(schema);
      expect(() => strict.compile(served)).not.toThrow();
      const text = JSON.stringify(served);
      expect(text).not.toContain('"definitions"');
      expect(text).not.toMatch(/"items":\[/);
      expect(text).not.toMatch(/"type":\[/);
    }
  });

  it("accepts exactly what the draft-07 form accepts", async () => {
    const draft07 = await createAjv();
    const draft2020 = createAjv2020();
    const pairs = schemas.map((schema) => ({ old: draft07.compile(schema), served: draft2020.compile(toJsonSchema2020(schema)) }));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: pairs.length - 1 }), fc.dictionary(fc.constantFrom("a", "b", "items", "pair", "note", "value", "mode", "kind"), fc.jsonValue({ maxDepth: 3 })), (index, value) => {
        const { old, served } = pairs[index]!;
        expect(served(structuredClone(value))).toBe(old(structuredClone(value)));
      }),
      { numRuns: 500 },
    );
  });
});
