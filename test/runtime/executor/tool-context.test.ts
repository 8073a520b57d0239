import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { callWithTimeout } from "../../../src/runtime/execution/call-with-timeout.js";
import { runWithToolContext, strayErrorOrigin, TOOL_NAME, toolContext } from "../../../src/runtime/execution/tool-context.js";

/**
 * What a tool's `toolContext()` sees: its own call's workspace and signal for as long as the call is in
 * progress (after awaits, in parallel with other calls, past a timeout it ignores), and the defaults
 * outside any call, including in work a call left behind when it ended.
 */
const signal = new AbortController().signal;
const seen = () => toolContext().workspace;

describe("toolContext", () => {
  it("is the call's own after awaits and in work the call waits for", async () => {
    const result = await runWithToolContext({ workspace: "/ws/a", signal }, async () => {
      await sleep(1);
      const inner = await new Promise<string>((resolve) => setTimeout(() => resolve(seen()), 1));
      return [seen(), inner];
    });
    expect(result).toEqual(["/ws/a", "/ws/a"]);
  });

  it("is the call's own until a thenable the call returned (not a native promise) settles", async () => {
    // Work started in the call, settled later, as a query builder's or another library's promise is.
    const returned = runWithToolContext({ workspace: "/ws/thenable", signal }, () => {
      const waiting: ((value: string) => void)[] = [];
      let value: string | undefined;
      setTimeout(() => {
        value = seen();
        for (const resolve of waiting) resolve(value);
      }, 5);
      return { then: (resolve: (value: string) => void) => (value === undefined ? waiting.push(resolve) : resolve(value)) };
    });
    expect(await returned).toBe("/ws/thenable");
  });

  it("of one call stays while a parallel call ends", async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const long = runWithToolContext({ workspace: "/ws/long", signal }, async () => {
      await held;
      await sleep(1);
      return seen();
    });
    expect(await runWithToolContext({ workspace: "/ws/short", signal }, async () => seen())).toBe("/ws/short");
    expect(runWithToolContext({ workspace: "/ws/sync", signal }, seen)).toBe("/ws/sync");
    release();
    expect(await long).toBe("/ws/long");
  });

  it("gives the defaults outside a call, and in work a call left running after it ended", async () => {
    const late = new Promise<string>((resolve) => {
      runWithToolContext({ workspace: "/ws/ended", signal }, () => {
        setTimeout(() => resolve(seen()), 20);
        return "returned at once";
      });
    });
    expect(await late).toBe(process.cwd());
    expect(seen()).toBe(process.cwd());
    expect(toolContext().signal.aborted).toBe(false);
  });

  it("stays the call's own, with its signal aborted, for a tool that runs on past its timeout", async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let afterTimeout: { workspace: string; aborted: boolean; reason: unknown } | undefined;
    // Its signal is read for the first time only after the timeout.
    const tool = async () => {
      await held;
      const { workspace, signal } = toolContext();
      afterTimeout = { workspace, aborted: signal.aborted, reason: (signal.reason as Error).name };
    };
    const result = await callWithTimeout(tool, [], { workspace: "/ws/slow", signal }, 10);
    expect(result).toEqual({ kind: "timeout" });
    release();
    await sleep(5);
    expect(afterTimeout).toEqual({ workspace: "/ws/slow", aborted: true, reason: "TimeoutError" });
  });

  it("ends a call that throws at once, and the next call sees its own context", async () => {
    expect(() =>
      runWithToolContext({ workspace: "/ws/throws", signal }, () => {
        throw new Error("at once");
      }),
    ).toThrow("at once");
    expect(seen()).toBe(process.cwd());
    await expect(runWithToolContext({ workspace: "/ws/next", signal }, async () => Promise.reject(new Error(seen())))).rejects.toThrow("/ws/next");
    expect(seen()).toBe(process.cwd());
  });
});

describe("strayErrorOrigin", () => {
  const named = (workspace: string, tool: string) => ({ workspace, signal, [TOOL_NAME]: tool });

  it("names the tool in work its call left running, after every call has ended, and nobody outside", async () => {
    const left = new Promise<(string | undefined)[]>((resolve) => {
      runWithToolContext(named("/ws/left", "save"), () => {
        setTimeout(() => resolve([strayErrorOrigin(), seen()]), 10);
        return "answered";
      });
    });
    const outside = new Promise<string | undefined>((resolve) => setTimeout(() => resolve(strayErrorOrigin()), 10));
    expect(await left).toEqual(["save", process.cwd()]);
    expect(await outside).toBeUndefined();
    expect(strayErrorOrigin()).toBeUndefined();
    // Reading it leaves the store off: the next call still starts clean and sees its own context.
    expect(runWithToolContext(named("/ws/next", "next"), () => [seen(), strayErrorOrigin()])).toEqual(["/ws/next", "next"]);
  });
});
