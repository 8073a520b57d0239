import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAgentArgs } from "../../src/cli/parse-agent-args.js";
import { colorsWanted, createProgressReporter, shorten } from "../../src/cli/progress-reporter.js";

describe("parseAgentArgs", () => {
  it("takes flags before and after the prompt, in both spellings, and joins the prompt's tokens", () => {
    expect(parseAgentArgs(["--model", "m", "what", "is", "--max-turns=3", "this?", "--no-stream", "--workspace", "w", "--transcript", "t", "--tool-timeout", "500", "--idle-timeout", "900", "--request-timeout", "30000"])).toEqual({
      ok: true,
      args: { model: "m", prompt: "what is this?", maxTurns: 3, stream: false, help: false, workspace: "w", transcript: "t", toolTimeoutMs: 500, idleTimeoutMs: 900, requestTimeoutMs: 30000 },
    });
  });

  it("reads the response bounds; a duration no Node.js timer holds is refused, a byte count is not a duration", () => {
    expect(parseAgentArgs(["hi", "--response-timeout=2147483647", "--max-response-bytes", "3000000000"])).toMatchObject({
      ok: true,
      args: { responseTimeoutMs: 2_147_483_647, maxResponseBytes: 3_000_000_000 },
    });
    expect(parseAgentArgs(["hi", "--response-timeout", "2147483648"])).toEqual({
      ok: false,
      error: "--response-timeout can be at most 2147483647 ms (about 24.8 days, the longest a Node.js timer holds), got 2147483648",
    });
    expect(parseAgentArgs(["hi", "--max-response-bytes", "0"])).toMatchObject({ ok: false, error: expect.stringContaining("--max-response-bytes needs a whole number of at least 1") });
  });

  it("reads --context-window as a whole number of tokens of at least 1", () => {
    expect(parseAgentArgs(["hi", "--context-window", "128000"])).toMatchObject({ ok: true, args: { contextWindow: 128_000 } });
    expect(parseAgentArgs(["--context-window=8192", "hi"])).toMatchObject({ ok: true, args: { contextWindow: 8_192, prompt: "hi" } });
    expect(parseAgentArgs(["hi", "--context-window", "0"])).toEqual({ ok: false, error: '--context-window needs a whole number of at least 1, got "0"' });
    expect(parseAgentArgs(["hi", "--context-window", "128k"])).toEqual({ ok: false, error: '--context-window needs a whole number of at least 1, got "128k"' });
  });

  it("`--` ends the flags; a prompt may start with a dash followed by a digit", () => {
    expect(parseAgentArgs(["--", "--model", "x"])).toMatchObject({ ok: true, args: { prompt: "--model x" } });
    expect(parseAgentArgs(["-5 + 3?"])).toMatchObject({ ok: true, args: { prompt: "-5 + 3?" } });
  });

  it("names unknown flags and flags without a valid value", () => {
    expect(parseAgentArgs(["hi", "--verbose"])).toEqual({ ok: false, error: "unknown flag --verbose" });
    expect(parseAgentArgs(["-v", "hi"])).toEqual({ ok: false, error: "unknown flag -v" });
    expect(parseAgentArgs(["hi", "--model"])).toEqual({ ok: false, error: "--model needs a value" });
    expect(parseAgentArgs(["--max-turns", "0", "hi"])).toMatchObject({ ok: false, error: expect.stringContaining("--max-turns needs a whole number") });
    expect(parseAgentArgs(["--no-stream=yes"])).toEqual({ ok: false, error: "--no-stream takes no value" });
  });

  it("no prompt when there are only flags or blank tokens", () => {
    expect(parseAgentArgs(["--no-stream", " "])).toEqual({ ok: true, args: { stream: false, help: false } });
  });

  it("property: any argv parses to a value, never throws", () => {
    fc.assert(fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom("--model", "--max-turns", "--", "--no-stream", "--resume=", "-x"))), (argv) => {
      const parsed = parseAgentArgs(argv);
      expect(typeof parsed.ok).toBe("boolean");
    }));
  });
});

describe("progress output", () => {
  it("colours on a terminal or with FORCE_COLOR, never with NO_COLOR", () => {
    expect(colorsWanted({ isTTY: true }, {})).toBe(true);
    expect(colorsWanted({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(colorsWanted({ isTTY: false }, {})).toBe(false);
    expect(colorsWanted({}, {})).toBe(false);
    expect(colorsWanted({ isTTY: false }, { FORCE_COLOR: "1" })).toBe(true);
    expect(colorsWanted({ isTTY: false }, { FORCE_COLOR: "0" })).toBe(false);
    expect(colorsWanted({ isTTY: true }, { FORCE_COLOR: "1", NO_COLOR: "1" })).toBe(false);
  });

  it("shortens to one line with the original length", () => {
    expect(shorten("a\n  b", 10)).toBe("a b");
    expect(shorten("x".repeat(30), 10)).toBe(`${"x".repeat(10)}… (30 chars)`);
  });

  it("shortens a tool name the model made up, like its arguments and result", () => {
    let out = "";
    const reporter = createProgressReporter({ write: (text) => (out += text) }, false);
    const call = { id: "c", type: "function" as const, function: { name: "n".repeat(200_000), arguments: "{}" } };
    reporter.onEvent({ type: "tool_call_start", turn: 1, call });
    reporter.onEvent({ type: "tool_call_end", turn: 1, call, result: { status: "unknown_tool", content: "no such tool" } });
    expect(out).toBe(`  → ${"n".repeat(64)}… (200000 chars)({})\n  ← ${"n".repeat(64)}… (200000 chars) unknown_tool: no such tool\n`);
  });

  it("ends streamed text before the next line", () => {
    let out = "";
    const reporter = createProgressReporter({ write: (text) => (out += text) }, false);
    reporter.onEvent({ type: "text_delta", turn: 1, text: "partial" });
    reporter.onEvent({ type: "turn_end", turn: 1, finishReason: "stop", toolCalls: 0, usage: { promptTokens: 3, completionTokens: 1, cachedTokens: 2 } });
    expect(out).toBe("partial\n  tokens: 3 in (2 cached), 1 out\n");
  });
});
