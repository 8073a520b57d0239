import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FirstInOrder } from "../../src/runtime/workspace/first-in-order.js";

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

describe("FirstInOrder, keeping the first names of a stream", () => {
  it("keeps exactly the first `limit` names in code-unit order, tells of every other one, and never holds more than twice the limit", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 6 }), { maxLength: 300 }), fc.integer({ min: 1, max: 40 }), (names, limit) => {
        const dropped: string[] = [];
        const first = new FirstInOrder<{ name: string }>(limit, (item) => dropped.push(item.name));
        let most = 0;
        for (const name of names) {
          first.add({ name });
          most = Math.max(most, (first as unknown as { items: unknown[] }).items.length);
        }
        const sorted = [...names].sort(byCodeUnits);
        expect(first.first().map((item) => item.name)).toEqual(sorted.slice(0, limit));
        expect(dropped.sort(byCodeUnits)).toEqual(sorted.slice(limit));
        expect(most).toBeLessThan(2 * limit);
      }),
    );
  });

  it("sorts by UTF-16 code units, not by locale", () => {
    const first = new FirstInOrder<{ name: string }>(3, () => undefined);
    for (const name of ["b", "😀", "Z", "a", "é"]) first.add({ name });
    expect(first.first().map((item) => item.name)).toEqual(["Z", "a", "b"]);
  });
});
