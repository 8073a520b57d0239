/** The scripted server's prefix comparison gives what comparing the JSON texts without `cache_control` members gives. */
import fc from "fast-check";
import { expect, it } from "vitest";
import { sameWithoutCacheMarks } from "../../src/scripted-server/same-without-cache-marks.js";

const textWithoutMarks = (value: unknown) => JSON.stringify(value, (key, member: unknown) => (key === "cache_control" ? undefined : member));

/** JSON values as a request body holds them, with `cache_control` among the member names often. */
const key = fc.oneof(fc.constantFrom("cache_control", "type", "text", "content"), fc.string({ maxLength: 3 }));
const { json } = fc.letrec((tie) => ({
  json: fc.oneof({ depthSize: "small" }, fc.constantFrom(null, true, false, 0, -0, 1, "", "a", "b"), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.array(tie("json"), { maxLength: 3 }), fc.dictionary(key, tie("json"), { maxKeys: 3 })),
}));
/** A value and a near copy: a cache mark added, removed or moved, a member changed, or the same. */
const pair = json.chain((value) => fc.tuple(fc.constant(value), fc.oneof(fc.constant(JSON.parse(JSON.stringify(value)) as unknown), json, fc.constant(marked(value)))));

function marked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(marked);
  if (typeof value !== "object" || value === null) return value;
  return { ...Object.fromEntries(Object.entries(value).map(([name, member]) => [name, marked(member)])), cache_control: { type: "ephemeral" } };
}

it("agrees with comparing the JSON texts without cache_control members, for any two values", () => {
  fc.assert(fc.property(pair, ([a, b]) => sameWithoutCacheMarks(a, b) === (textWithoutMarks(a) === textWithoutMarks(b))), { numRuns: 2000 });
});

it("a cache mark added anywhere changes nothing; a reordered member, a changed text or an extra block does", () => {
  const history = [{ role: "user", content: [{ type: "text", text: "hi" }] }, { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "get_time", input: {} }] }];
  expect(sameWithoutCacheMarks(history, marked(history))).toBe(true);
  expect(sameWithoutCacheMarks(history, [history[0], { content: history[1]!.content, role: "assistant" }])).toBe(false);
  expect(sameWithoutCacheMarks(history, [{ role: "user", content: [{ type: "text", text: "hi!" }] }, history[1]])).toBe(false);
  expect(sameWithoutCacheMarks(history, [...history, history[0]])).toBe(false);
  expect(sameWithoutCacheMarks(undefined, undefined)).toBe(true);
  expect(sameWithoutCacheMarks(undefined, [])).toBe(false);
});
