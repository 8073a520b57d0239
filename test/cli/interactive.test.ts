import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runInteractive } from "../../src/cli/interactive.js";
import { createProgressReporter } from "../../src/cli/progress-reporter.js";
import { createAgent } from "../../src/runtime/loop/agent.js";
import { answerTurn, fakeExecutor, scriptedRequester } from "../runtime/loop/fakes.js";

describe("interactive chat", () => {
  it("answers each line with history kept across prompts, and leaves at end of input (Ctrl-D) with 0", async () => {
    const requester = scriptedRequester([answerTurn("hello there"), answerTurn("you said hi")]);
    const agent = createAgent({ requestTurn: requester.requestTurn, executor: fakeExecutor(), model: "m", systemPrompt: "sys", workspace: "/tmp" });
    const input = new PassThrough();
    let stdout = "";
    let stderr = "";
    const output = { write: (text: string) => (stderr += text) };
    const done = runInteractive({ agent, input, prompts: new PassThrough(), stdout: { write: (text: string) => (stdout += text) }, reporter: createProgressReporter(output, false) });
    input.end("hi\n\nwhat did I say?\n");
    expect(await done).toBe(0);
    expect(stdout).toBe("hello there\nyou said hi\n");
    expect(stderr).toContain("Ctrl-D to leave");
    expect(requester.requests[1]?.messages.map((m) => m.content)).toEqual(["sys", "hi", "hello there", "what did I say?"]);
  });
});
