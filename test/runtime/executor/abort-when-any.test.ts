import { getEventListeners } from "node:events";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { abortWhenAny } from "../../../src/runtime/execution/abort-fan-out.js";

describe("abortWhenAny", () => {
  it("aborts with the reason of whichever source aborts first, and only once", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.nat(), fc.string(), (count, pick, reason) => {
        const sources = Array.from({ length: count }, () => new AbortController());
        const { signal } = abortWhenAny(sources.map((source) => source.signal));
        expect(signal.aborted).toBe(false);
        const first = sources[pick % count]!;
        first.abort(reason);
        expect(signal.aborted).toBe(true);
        expect(signal.reason).toBe(reason);
        for (const other of sources) other.abort("later");
        expect(signal.reason).toBe(reason);
      }),
    );
  });

  it("is aborted at once, with its reason, when a source already is", () => {
    const done = new AbortController();
    done.abort("shutting down");
    const { signal } = abortWhenAny([new AbortController().signal, done.signal]);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("shutting down");
  });

  it("leaves no listener on a long-lived source once every follower is released", () => {
    const server = new AbortController();
    const followers = Array.from({ length: 1000 }, () => abortWhenAny([new AbortController().signal, server.signal]));
    expect(getEventListeners(server.signal, "abort")).toHaveLength(1);
    for (const follower of followers) follower.release();
    expect(getEventListeners(server.signal, "abort")).toHaveLength(0);
    server.abort();
    expect(followers.some((follower) => follower.signal.aborted)).toBe(false);
  });
});
