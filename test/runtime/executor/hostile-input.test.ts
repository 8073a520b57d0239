/**
 * Whatever the model sends as a tool name or arguments, the executor answers with exactly one outcome,
 * never throws, stays within the cap (plus the truncation note), and leaves every prototype untouched.
 */
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import type { ToolCall } from "../../../src/runtime/loop/messages.js";
import { createToolExecutor } from "../../../src/runtime/execution/tool-executor.js";
import { truncationNote } from "../../../src/runtime/execution/format-tool-result.js";
import type { ToolContext, ToolOutcome } from "../../../src/runtime/loop/types.js";
import { fixtureDir, fixtureSchemas } from "../../fixtures/executor/schemas.js";

const CAP = 300;
const executor = createToolExecutor({ schemas: fixtureSchemas, schemasDir: fixtureDir, maxResultChars: CAP, timeoutMs: 20 });
const context: ToolContext = { workspace: "/w", signal: new AbortController().signal };
const toolNames = fixtureSchemas.tools.map((tool) => tool.function.name);
const STATUSES = ["ok", "invalid_arguments", "unknown_tool", "tool_error", "timeout", "aborted"];
const prototypes = [Object.prototype, Array.prototype, Function.prototype, String.prototype];
const before = prototypes.map((proto) => Object.getOwnPropertyNames(proto).sort());

function expectPristinePrototypes(): void {
  expect(prototypes.map((proto) => Object.getOwnPropertyNames(proto).sort())).toEqual(before);
  const probe = {} as Record<string, unknown>;
  expect(Object.getPrototypeOf(probe)).toBe(Object.prototype);
  expect(probe.polluted).toBeUndefined();
  expect(probe.constructor).toBe(Object);
}

async function expectOneCappedOutcome(call: unknown): Promise<ToolOutcome> {
  const outcome = await executor.execute(call as ToolCall, context);
  expect(Object.keys(outcome).sort()).toEqual(["content", "status"]);
  expect(STATUSES).toContain(outcome.status);
  expect(typeof outcome.content).toBe("string");
  // The note can only be as long as the one for the largest plausible original length.
  expect(outcome.content.length).toBeLessThanOrEqual(CAP + truncationNote(Number.MAX_SAFE_INTEGER, CAP).length);
  return outcome;
}

function toolCall(name: string, args: string): ToolCall {
  return { id: "call_x", type: "function", function: { name, arguments: args } };
}

/** JSON text (not values: fast-check objects could not hold an own `__proto__` reliably) with hostile keys. */
const hostileJson: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }).map((value) => JSON.stringify(value)),
    fc.constantFrom("1e400", "-1e400", "123456789012345678901234567890", "-0", "5e-324", '"5"', '"true"', '"\\ud800"'),
    fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
    fc
      .array(
        fc.tuple(
          fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "toString", "a", "b", "title", "options", "counts", "count", "label"), fc.string({ unit: "binary" })),
          tie("value"),
        ),
        { maxLength: 5 },
      )
      .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`),
  ),
})).value;

const anyName = fc.oneof(fc.constantFrom(...toolNames), fc.string({ unit: "binary" }), fc.constantFrom("__proto__", "constructor", "hasOwnProperty"));

afterAll(expectPristinePrototypes);

describe("hostile tool calls", () => {
  test("arbitrary strings as tool names and arguments", async () => {
    await fc.assert(
      fc.asyncProperty(anyName, fc.string({ unit: "binary", maxLength: 200 }), async (name, args) => {
        await expectOneCappedOutcome(toolCall(name, args));
      }),
      { numRuns: 300 },
    );
    expectPristinePrototypes();
  });

  test("arbitrary JSON with __proto__ / constructor keys, huge numbers and lone surrogates", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...toolNames), hostileJson, async (name, args) => {
        await expectOneCappedOutcome(toolCall(name, args));
        expectPristinePrototypes();
      }),
      { numRuns: 300 },
    );
  });

  test("known parameters with arbitrary values, double-encoded or not", async () => {
    const args = fc.record({ title: hostileJson, options: hostileJson, counts: hostileJson, a: hostileJson }, { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("saveRecord", "countWords", "add"), args, fc.boolean(), async (name, fields, encodeTwice) => {
        const text = `{${Object.entries(fields).map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`;
        await expectOneCappedOutcome(toolCall(name, encodeTwice ? JSON.stringify(text) : text));
        expectPristinePrototypes();
      }),
      { numRuns: 200 },
    );
  });

  test("calls that are not even shaped like calls", async () => {
    const shapes = fc.oneof(
      fc.constantFrom(null, undefined, {}, { function: null }, { function: { name: 5, arguments: 5 } }),
      fc.record({ function: fc.record({ name: fc.constantFrom(...toolNames), arguments: fc.jsonValue() }) }),
    );
    await fc.assert(fc.asyncProperty(shapes, async (call) => void (await expectOneCappedOutcome(call))), { numRuns: 100 });
  });
});

describe("hostile tools", () => {
  // The tool module is swapped for one whose function returns or throws whatever fast-check makes.
  let behave: () => unknown = () => undefined;
  const swapped = createToolExecutor({
    schemas: fixtureSchemas,
    schemasDir: fixtureDir,
    maxResultChars: CAP,
    importModule: async () => ({ nothing: () => behave() }),
  });
  const anything = fc.anything({
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
    withUnicodeString: true,
  });

  test("any return value becomes one capped outcome", async () => {
    await fc.assert(
      fc.asyncProperty(anything, fc.boolean(), async (value, asPromise) => {
        behave = () => (asPromise ? Promise.resolve(value) : value);
        const outcome = await swapped.execute(toolCall("nothing", ""), context);
        expect(["ok", "tool_error"]).toContain(outcome.status);
        expect(outcome.content.length).toBeLessThanOrEqual(CAP + truncationNote(Number.MAX_SAFE_INTEGER, CAP).length);
      }),
      { numRuns: 200 },
    );
  });

  test("anything thrown or rejected is the tool's own failure", async () => {
    await fc.assert(
      fc.asyncProperty(anything, fc.boolean(), async (value, asRejection) => {
        behave = () => {
          if (asRejection) return Promise.reject(value);
          throw value;
        };
        const outcome = await swapped.execute(toolCall("nothing", ""), context);
        expect(outcome.status).toBe("tool_error");
        expect(outcome.content).toMatch(/^The tool nothing itself failed: /);
      }),
      { numRuns: 200 },
    );
  });
});

describe("hostile sizes", () => {
  const tenMegabytes = "x".repeat(10 * 1024 * 1024);

  test.each([
    ["a 10 MB tool name", () => toolCall(tenMegabytes, "{}"), "unknown_tool"],
    ["10 MB of invalid JSON", () => toolCall("add", `{${tenMegabytes}`), "invalid_arguments"],
    ["a 10 MB string argument where a number is expected", () => toolCall("add", JSON.stringify({ a: tenMegabytes })), "invalid_arguments"],
    ["a 10 MB string argument that is fine", () => toolCall("saveRecord", JSON.stringify({ title: tenMegabytes })), "ok"],
    ["a 10 MB unknown key", () => toolCall("add", `{"a": 1, ${JSON.stringify(tenMegabytes)}: 2}`), "ok"],
    ["100k nested arrays", () => toolCall("add", "[".repeat(100_000) + "]".repeat(100_000)), "invalid_arguments"],
    ["100k nested arrays inside an argument", () => toolCall("saveRecord", `{"title": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`), "invalid_arguments"],
    ["100k nested objects in a dictionary", () => toolCall("countWords", `{"counts": ${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}}`), "invalid_arguments"],
    [
      "a recursive type nested 100k deep",
      () => toolCall("countNodes", `{"tree": ${'{"name":"n","children":['.repeat(100_000)}{"name":"leaf"}${"]}".repeat(100_000)}}`),
      "invalid_arguments",
    ],
    ["a 1e400 number", () => toolCall("add", '{"a": 1e400, "b": -1e400}'), "ok"],
    // Each of these makes Ajv report 100k+ errors; anything quadratic in them would hang the loop.
    ["100k array items failing a union", () => toolCall("totalArea", JSON.stringify({ shapes: Array(100_000).fill(5) })), "invalid_arguments"],
    [
      "20k union items each needing a repair",
      () => toolCall("totalArea", JSON.stringify({ shapes: Array(20_000).fill({ kind: "square", side: "3", x: 1 }) })),
      "ok",
    ],
    ["100k wrong array items", () => toolCall("saveRecord", JSON.stringify({ title: "t", tags: Array(100_000).fill(1) })), "invalid_arguments"],
    ["100k unknown keys", () => toolCall("add", JSON.stringify(Object.fromEntries([["a", 1], ...Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i])]))), "ok"],
  ] as const)("%s", async (_label, makeCall, status) => {
    expect((await expectOneCappedOutcome(makeCall())).status).toBe(status);
    expectPristinePrototypes();
  });

  test("nesting depth near the parser's limit, at random", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 300_000 }), fc.constantFrom("[", '{"a":'), async (depth, open) => {
        const close = open === "[" ? "]" : "}";
        const inner = open === "[" ? "" : "1";
        await expectOneCappedOutcome(toolCall("countWords", `{"counts": ${open.repeat(depth)}${inner}${close.repeat(depth)}}`));
      }),
      { numRuns: 8 },
    );
  });
});
