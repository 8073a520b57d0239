/**
 * A server's `inputSchema` as the model and the server see it: in strict mode a `$ref` into a
 * definition's inside (a JSON Pointer, escapes and all) still gives the tool its strict form, a `$ref`
 * that points nowhere keeps it lenient with the reason; and `null` for an optional member of an object
 * at a `prefixItems` position reaches the server as absent.
 */
import { describe, expect, it } from "vitest";
import { createMcpToolSet } from "../../../src/runtime/mcp-client/mcp-tool-set.js";
import type { ServerConnection, ServerTool } from "../../../src/runtime/mcp-client/server-connection.js";
import type { ToolExecutor } from "../../../src/runtime/loop/types.js";
import type { JsonSchema } from "../../../src/shared/schemas-file.js";
import { strictDialectViolations } from "../../../src/scripted-server/strict-dialect.js";

const noLocalTools: ToolExecutor = { definitions: [], execute: () => Promise.resolve({ status: "unknown_tool", content: "" }) };

/** A started server that answers every call with the arguments it received. */
function echoServer(received: Array<Record<string, unknown>>): ServerConnection {
  return {
    name: "s",
    start: () => Promise.resolve({ ok: true, tools: [] }),
    call: (_tool, args) => {
      received.push(args);
      return Promise.resolve({ kind: "result", result: { content: [{ type: "text", text: JSON.stringify(args) }] } });
    },
    toolsSettled: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

function offer(inputSchema: JsonSchema, strict = true) {
  const notices: string[] = [];
  const received: Array<Record<string, unknown>> = [];
  const set = createMcpToolSet({ local: noLocalTools, strict, onNotice: (line) => notices.push(line) });
  const added = set.add(echoServer(received), [{ name: "t", inputSchema } as ServerTool]);
  if (!added.ok) throw new Error(added.error);
  const call = (args: unknown) => set.execute({ id: "c1", type: "function", function: { name: "s__t", arguments: JSON.stringify(args) } }, { workspace: "/w", signal: new AbortController().signal });
  return { definition: set.definitions[0]!.function, notices, received, call };
}

const size = { type: "object", properties: { w: { type: "number" }, unit: { type: "string" } }, required: ["w"] };
const strictSize = { type: "object", properties: { w: { type: "number" }, unit: { type: ["string", "null"] } }, additionalProperties: false, required: ["w", "unit"] };

describe("strict form of a server tool whose $ref points into a definition", () => {
  it("offers it strict, the pointed-at member made a definition of its own", () => {
    const { definition, notices } = offer({
      type: "object",
      $defs: { box: { type: "object", properties: { size }, required: ["size"] } },
      properties: { size: { $ref: "#/$defs/box/properties/size" }, box: { $ref: "#/$defs/box" } },
      required: ["size"],
    });
    expect(notices).toEqual([]);
    expect(definition.strict).toBe(true);
    expect(definition.parameters).toEqual({
      type: "object",
      properties: { size: { $ref: "#/definitions/box.properties.size" }, box: { anyOf: [{ $ref: "#/definitions/box" }, { type: "null" }] } },
      additionalProperties: false,
      required: ["size", "box"],
      definitions: {
        box: { type: "object", properties: { size: strictSize }, additionalProperties: false, required: ["size"] },
        "box.properties.size": strictSize,
      },
    });
    expect(strictDialectViolations(definition.parameters)).toEqual([]);
  });

  it("renames only $ref keywords into $defs, never a const, enum or default that reads like one, nor a member named $ref or const", () => {
    const { definition, notices, call, received } = offer({
      type: "object",
      $defs: { box: size },
      properties: {
        pointer: { type: "string", const: "#/$defs/box" },
        choice: { type: "string", enum: ["#/$defs/box", "other"], default: "#/$defs/box" },
        const: { $ref: "#/$defs/box" },
        $ref: { type: "object", properties: { $ref: { type: "string" } }, required: ["$ref"] },
      },
      required: ["pointer", "choice", "const", "$ref"],
    });
    expect(notices).toEqual([]);
    expect(definition.strict).toBe(true);
    expect(definition.parameters).toEqual({
      type: "object",
      properties: {
        pointer: { type: "string", const: "#/$defs/box" },
        choice: { type: "string", description: "Default: \"#/$defs/box\".", enum: ["#/$defs/box", "other"] },
        const: { $ref: "#/definitions/box" },
        $ref: { type: "object", properties: { $ref: { type: "string" } }, additionalProperties: false, required: ["$ref"] },
      },
      additionalProperties: false,
      required: ["pointer", "choice", "const", "$ref"],
      definitions: { box: strictSize },
    });
    expect(strictDialectViolations(definition.parameters)).toEqual([]);
    return call({ pointer: "#/$defs/box", choice: "#/$defs/box", const: { w: 1, unit: null }, $ref: { $ref: "x" } }).then((outcome) => {
      expect(outcome.status).toBe("ok");
      expect(received).toEqual([{ pointer: "#/$defs/box", choice: "#/$defs/box", const: { w: 1 }, $ref: { $ref: "x" } }]);
    });
  });

  it("reads the pointer as RFC 6901 in a URI fragment: ~1, ~0, percent escapes, array indexes, definitions/…/items", () => {
    const { definition, notices } = offer({
      type: "object",
      definitions: {
        "a/b~c d": { type: "object", properties: { n: { type: "string" } }, required: ["n"] },
        list: { type: "array", items: size },
        either: { anyOf: [size, { type: "string" }] },
      },
      properties: {
        odd: { $ref: "#/definitions/a~1b~0c%20d" },
        item: { $ref: "#/definitions/list/items" },
        first: { $ref: "#/definitions/either/anyOf/0", description: "The first branch." },
      },
      required: ["odd", "item", "first"],
    });
    expect(notices).toEqual([]);
    expect(definition.strict).toBe(true);
    expect(definition.parameters).toEqual({
      type: "object",
      properties: {
        odd: { $ref: "#/definitions/a_b_c_d" },
        item: { $ref: "#/definitions/list.items" },
        // A described `$ref` becomes a copy of what it points at (the strict dialect allows it no sibling).
        first: { ...strictSize, description: "The first branch." },
      },
      additionalProperties: false,
      required: ["odd", "item", "first"],
      definitions: {
        a_b_c_d: { type: "object", properties: { n: { type: "string" } }, additionalProperties: false, required: ["n"] },
        "list.items": strictSize,
      },
    });
    expect(strictDialectViolations(definition.parameters)).toEqual([]);
  });

  it("keeps a tool whose $ref points nowhere lenient, with the reason naming the pointer", () => {
    const { definition, notices } = offer({
      type: "object",
      $defs: { box: { type: "object", properties: { size } } },
      properties: { size: { $ref: "#/$defs/box/properties/nope" } },
      required: ["size"],
    });
    expect(definition.strict).toBe(false);
    expect(notices).toEqual([
      'mcp: tool "s__t" is offered with strict: false in strict mode: parameter "size" refers to "#/definitions/box/properties/nope", which points to nothing in the schema; the model\'s arguments are still validated',
    ]);
  });

  it("keeps the message for a missing definition by name as it was", () => {
    const { notices } = offer({ type: "object", $defs: {}, properties: { p: { $ref: "#/$defs/missing" } }, required: ["p"] });
    expect(notices).toEqual([
      'mcp: tool "s__t" is offered with strict: false in strict mode: parameter "p" refers to a definition "missing" that is missing; the model\'s arguments are still validated',
    ]);
  });
});

describe("null for an optional member inside a server tool's tuple", () => {
  const inputSchema: JsonSchema = {
    type: "object",
    $defs: { pt: { type: "object", properties: { x: { type: "number" }, label: { type: "string" } }, required: ["x"] } },
    properties: {
      pair: { type: "array", prefixItems: [{ type: "string" }, { $ref: "#/$defs/pt" }], items: false },
      path: { type: "array", prefixItems: [{ type: "string" }], items: { $ref: "#/$defs/pt" } },
    },
    required: ["pair"],
  };

  it("reaches the server as absent at a prefixItems position and in the items after them", async () => {
    const { call, received } = offer(inputSchema, false);
    const outcome = await call({ pair: ["a", { x: 1, label: null }], path: ["start", { x: 2, label: null }] });
    expect(outcome).toEqual({ status: "ok", content: '{"pair":["a",{"x":1}],"path":["start",{"x":2}]}' });
    expect(received).toEqual([{ pair: ["a", { x: 1 }], path: ["start", { x: 2 }] }]);
  });
});
