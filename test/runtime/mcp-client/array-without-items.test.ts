/**
 * A server's array schema without `items`, which OpenAI refuses: offered with `items: {}` (the same
 * meaning) at any depth, for every provider, while the calls are checked against the server's own schema;
 * in strict mode such an array has no strict form, so the tool is offered lenient, with `items: {}`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { missingItemsProblem } from "../../../src/scripted-server/array-items.js";
import { strictDialectViolations } from "../../../src/scripted-server/strict-dialect.js";
import { prepareToolSchema } from "../../../src/runtime/mcp-client/tool-schema.js";
import { toStrictParameters } from "../../../src/shared/dialects/strict-parameters.js";
import type { JsonSchema, ParametersSchema } from "../../../src/shared/schemas-file.js";
import { offerInProcess } from "../../support/in-process-mcp-tool.js";
import { arrayWithoutItems } from "../../support/nested-arrays.js";

/** The tool offered in-process: its definition as the model sees it, the notices, and a call. */
function offer(inputSchema: JsonSchema, strict: boolean) {
  const { added, set, notices, call } = offerInProcess(inputSchema, strict);
  if (!added.ok) throw new Error(added.error);
  return { definition: set.definitions[0]!.function, notices, call };
}

describe("a server's array without items", () => {
  it("is offered with items: {} wherever it is, and checked against the server's schema as listed", () => {
    fc.assert(
      fc.property(arrayWithoutItems, ({ schema, withItems }) => {
        const schemas = prepareToolSchema({ type: "object", properties: { p: schema } });
        expect(schemas.offered).toEqual({ type: "object", properties: { p: withItems } });
        expect(missingItemsProblem(schemas.offered)).toBeUndefined();
        expect(missingItemsProblem(schemas.checked)).toBe(missingItemsProblem({ type: "object", properties: { p: schema } }));
      }),
    );
  });

  it("keeps items the server wrote, a data value shaped like an array schema, and a member named items", () => {
    const inputSchema = {
      type: "object",
      properties: {
        list: { type: "array", items: { type: "number" } },
        tuple: { type: "array", items: [{ type: "string" }] },
        fixed: { type: "array", const: { type: "array" }, default: { type: "array" }, enum: [{ type: "array" }] },
        items: { type: "string" },
      },
    };
    expect(prepareToolSchema(inputSchema).offered).toEqual({ ...inputSchema, properties: { ...inputSchema.properties, fixed: { ...inputSchema.properties.fixed, items: {} } } });
  });

  it("in default mode: offered with items: {}, and a call that breaks the server's schema is not sent", async () => {
    const { definition, notices, call } = offer({ type: "object", properties: { tags: { type: "array", maxItems: 2 } }, required: ["tags"] }, false);
    expect(notices).toEqual([]);
    expect(definition).toEqual({ name: "s__t", description: "", parameters: { type: "object", properties: { tags: { type: "array", maxItems: 2, items: {} } }, required: ["tags"] } });
    expect(await call({ tags: [1, "x"] })).toMatchObject({ status: "ok", content: '{"tags":[1,"x"]}' });
    expect(await call({ tags: [1, 2, 3] })).toEqual({
      status: "invalid_arguments",
      content: ["The arguments for s__t do not match its parameters, so it was not run:", "- tags: expected at most 2 items, got an array of 3 items", "Parameters: tags (any[], required)", "Fix these and call s__t again."].join("\n"),
    });
  });

  it("in strict mode: offered lenient with items: {}, the reason said once", () => {
    const { definition, notices } = offer({ type: "object", properties: { tags: { type: "array" }, name: { type: "string" } }, required: ["tags", "name"] }, true);
    expect(definition).toEqual({ name: "s__t", description: "", parameters: { type: "object", properties: { tags: { type: "array", items: {} }, name: { type: "string" } }, required: ["tags", "name"] }, strict: false });
    expect(notices).toEqual([
      'mcp: tool "s__t" is offered with strict: false in strict mode: parameter "tags" is an array without items (no schema for its elements), which strict mode cannot express; the model\'s arguments are still validated',
    ]);
    expect(missingItemsProblem(definition.parameters)).toBeUndefined();
  });
});

describe("the strict form of an array without items", () => {
  const parameters = (properties: Record<string, JsonSchema>): ParametersSchema => ({ type: "object", properties, required: Object.keys(properties), additionalProperties: false }) as ParametersSchema;

  it.each([
    ["a bare array", { type: "array" }, "box"],
    ["an array that can hold no item (items: false)", { type: "array", items: false }, "box"],
    ["an empty tuple", { type: "array", prefixItems: [], items: false }, "box"],
    ["an array whose items are bare arrays", { type: "array", items: { type: "array" } }, "box[]"],
    ["a nullable array", { type: ["array", "null"] }, "box"],
  ])("does not exist for %s: the tool stays lenient, naming where", (_what, schema: JsonSchema, member: string) => {
    expect(toStrictParameters(parameters({ box: schema }))).toEqual({
      ok: false,
      problems: [{ parameter: "box", member, reason: "is an array without items (no schema for its elements), which strict mode cannot express" }],
    });
  });

  it("exists for an array with typed items, and OpenAI's checker accepts it", () => {
    const result = toStrictParameters(parameters({ box: { type: "array", items: { type: "string" }, maxItems: 0 } }));
    expect(result.ok).toBe(true);
    if (result.ok) expect(strictDialectViolations(result.parameters)).toEqual([]);
  });
});
