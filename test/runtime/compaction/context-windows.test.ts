/**
 * The window of common models by name, and the size estimate that errs on the large side: the agent
 * compacts before sending to a model in the table without being told its window.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contextWindowFor } from "../../../src/runtime/compaction/context-windows.js";
import { estimateTextTokens } from "../../../src/runtime/compaction/estimate-tokens.js";
import type { AgentEvent } from "../../../src/runtime/loop/agent-events.js";
import { createAgent } from "../../../src/runtime/loop/agent.js";
import { answerTurn, fakeExecutor, scriptedRequester } from "../loop/fakes.js";

describe("the built-in table of context windows", () => {
  it.each([
    ["gpt-4o", 128_000],
    ["gpt-4o-2024-08-06", 128_000],
    ["gpt-4o-mini", 128_000],
    ["openai/gpt-4o", 128_000],
    ["GPT-4O", 128_000],
    ["gpt-4", 8_192],
    ["gpt-4-0613", 8_192],
    ["gpt-4-32k", 32_768],
    ["gpt-4-turbo-preview", 128_000],
    ["gpt-4.1-mini", 1_047_576],
    ["gpt-5", 400_000],
    ["o1-mini", 128_000],
    ["o3-mini", 200_000],
    ["deepseek-chat", 131_072],
    ["deepseek/deepseek-reasoner", 131_072],
  ])("%s: %i tokens (the longest entry the name starts with)", (model, tokens) => {
    expect(contextWindowFor(model)).toBe(tokens);
  });

  it.each(["llama3:8b", "qwen2.5-coder", "gpt-4x", "gpt", "scripted-model"])("%s: unknown", (model) => {
    expect(contextWindowFor(model)).toBeUndefined();
  });

  it("a model in the table is compacted for before sending, without a window given", async () => {
    const events: AgentEvent[] = [];
    const requester = scriptedRequester([answerTurn("summary of the first question"), answerTurn("second answer")]);
    const agent = createAgent({
      requestTurn: requester.requestTurn,
      executor: fakeExecutor(),
      model: "gpt-4",
      workspace: "/tmp",
      history: [
        { role: "user", content: "first question ".repeat(1_500) },
        { role: "assistant", content: "first answer" },
      ],
      onEvent: (event) => events.push(event),
    });

    expect(await agent.run("second question")).toMatchObject({ kind: "answer", answer: "second answer" });
    expect(events.filter((event) => event.type === "compaction")).toEqual([
      expect.objectContaining({ step: "summarize", reason: "window", contextWindow: 8_192, messages: 1 }),
    ]);
    expect(requester.requests).toHaveLength(2);
  });
});

describe("the size estimate", () => {
  it("counts ASCII at 3 characters per token and every other character as a token", () => {
    expect(estimateTextTokens("")).toBe(0);
    expect(estimateTextTokens("abcdefg")).toBe(3);
    expect(estimateTextTokens("日本語")).toBe(3);
    expect(estimateTextTokens("€ and 日本語")).toBe(2 + 4);
  });

  it("property: never below a third of the characters, nor below one token per non-ASCII character", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 500 }), (text) => {
        const nonAscii = [...text].filter((char) => char.charCodeAt(0) >= 0x80).length;
        const estimate = estimateTextTokens(text);
        expect(estimate).toBeGreaterThanOrEqual(text.length / 3);
        expect(estimate).toBeGreaterThanOrEqual(nonAscii);
      }),
    );
  });
});
