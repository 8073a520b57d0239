/**
 * The CLI as a real process (the one `npm run agent` starts, stdin closed, no terminal): exit codes, Ctrl-C,
 * and SIGKILL at random points followed by `--resume`. Spawning costs ~0.5 s, so runs are few and grouped.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readTranscript } from "../../src/runtime/loop/transcript.js";
import type { RecordedRequest, ScriptStep } from "../../src/scripted-server/scripted-server.js";
import { historyProblems } from "../runtime/loop/fakes.js";
import { cliEnv, readTranscriptLines, runCliInProcess, spawnCli, useCliFixture } from "./support.js";

const fx = useCliFixture();

function spawnAgent(argv: string[]) {
  const child = spawnCli(["--schemas", fx.schemas, ...argv], cliEnv(fx.server.baseURL));
  void child.done.then((run) => fx.outputs.push(run.stdout, run.stderr));
  return child;
}

async function waitForRequest(count: number): Promise<void> {
  await fx.server.waitForRequests(count, 20_000);
}

describe("the real process", () => {
  it("answers with stdin closed and no terminal: exit 0, stdout is the answer alone", async () => {
    fx.server.setScript([{ toolCalls: [{ id: "c1", name: "echo", arguments: '{"text":"x"}' }] }, { content: "forty-two" }]);
    // As under `npm run`, the process starts in the project root and INIT_CWD is where the user was.
    const child = spawnCli(["--schemas", fx.schemas, "--no-stream", "what is the answer?", "--max-turns", "3", "--transcript", "relative.jsonl"], cliEnv(fx.server.baseURL, { INIT_CWD: fx.dir }));
    const run = await child.done;
    fx.outputs.push(run.stdout, run.stderr);
    expect(run.stdout).toBe("forty-two\n");
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("→ echo");
    expect(readTranscriptLines(path.join(fx.dir, "relative.jsonl")).at(-1)).toEqual({ role: "assistant", content: "forty-two" });
  });

  it("a reader that goes away (stdout and stderr closed) ends the run at once: exit 141, no warning loop", async () => {
    fx.server.setScript([{ content: "nobody reads this" }]);
    const child = spawnCli(["--schemas", fx.schemas, "hello"], cliEnv(fx.server.baseURL));
    child.stdout?.destroy();
    child.stderr?.destroy();
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const code = await Promise.race([exited, new Promise<"running">((resolve) => setTimeout(() => resolve("running"), 20_000))]);
    if (code === "running") child.kill("SIGKILL");
    expect(code).toBe(141);
  });

  it("Ctrl-C during a request: 'interrupted', exit 130, transcript intact without made-up messages", async () => {
    const file = path.join(fx.dir, "sigint-request.jsonl");
    const before = fx.server.requests.length;
    fx.server.setScript([{ content: "too late", delayMs: 30_000 }]);
    const child = spawnAgent(["hello", "--transcript", file]);
    await waitForRequest(before + 1);
    child.kill("SIGINT");
    const run = await child.done;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain("interrupted");
    expect(run.stdout).toBe("");
    expect(readTranscriptLines(file).map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("Ctrl-C during a tool: exit 130; the unanswered call is answered 'interrupted' on resume", async () => {
    const file = path.join(fx.dir, "sigint-tool.jsonl");
    const before = fx.server.requests.length;
    fx.server.setScript([{ toolCalls: [{ id: "w1", name: "wait_for_abort", arguments: "{}" }] }]);
    const child = spawnAgent(["wait", "--transcript", file]);
    await waitForRequest(before + 1);
    // The assistant line is written before the tool runs: once it is there, the tool is running.
    while (!existsSync(file) || !readFileSync(file, "utf8").includes('"tool_calls"')) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill("SIGINT");
    const run = await child.done;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain("interrupted");
    expect(readTranscriptLines(file).map((m) => m.role)).toEqual(["system", "user", "assistant"]);

    fx.server.setScript([{ content: "resumed fine" }]);
    const resumed = await runCliInProcess(["--schemas", fx.schemas, "--resume", file, "continue"], cliEnv(fx.server.baseURL), fx.dir);
    fx.outputs.push(resumed.stdout, resumed.stderr);
    expect(resumed).toMatchObject({ code: 0, stdout: "resumed fine\n" });
    expect(readTranscriptLines(file).map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user", "assistant"]);
  });
});

describe("SIGKILL at random points, then --resume", () => {
  const RUNS = 10;

  /** Tool calls for a while (each reply after a short delay, parallel calls every other turn), then an answer. */
  const slowConversation = (request: RecordedRequest): ScriptStep => {
    const messages = Array.isArray(request.body?.messages) ? request.body.messages : [];
    const turn = messages.filter((m: { role?: string }) => m.role === "assistant").length;
    if (turn >= 6) return { content: "finished", delayMs: 15 };
    const calls = [{ id: `t${turn}a`, name: "echo", arguments: JSON.stringify({ text: "x".repeat(200 * turn) }) }];
    if (turn % 2 === 1) calls.push({ id: `t${turn}b`, name: "fail", arguments: "{}" });
    return { toolCalls: calls, delayMs: 15, stream: { chunkSize: 40 } };
  };

  it(`kills the process ${RUNS} times; each transcript is valid JSON lines and resumes to an answer`, async () => {
    fx.server.setScript(slowConversation);
    const seen = new Set<number>();
    for (let i = 0; i < RUNS; i += 1) {
      const file = path.join(fx.dir, `kill-${i}.jsonl`);
      const before = fx.server.requests.length;
      const child = spawnAgent(["go", "--transcript", file]);
      // Spread the kills over the conversation: after a random number of requests, plus a random moment.
      const requestsBeforeKill = 1 + Math.floor(Math.random() * 7);
      await Promise.race([waitForRequest(before + requestsBeforeKill).catch(() => undefined), child.done]);
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 40)));
      child.kill("SIGKILL");
      const run = await child.done;
      expect([0, 137]).toContain(run.code);
      if (!existsSync(file)) continue;

      const reading = readTranscript(file);
      if (!reading.ok) throw new Error(reading.error);
      // Only the last line may be torn.
      const lines = readFileSync(file, "utf8").split("\n").filter((line) => line !== "");
      lines.slice(0, -1).forEach((line) => JSON.parse(line));
      seen.add(reading.messages.length);

      const resumed = await runCliInProcess(["--schemas", fx.schemas, "--resume", file, "continue"], cliEnv(fx.server.baseURL), fx.dir);
      fx.outputs.push(resumed.stdout, resumed.stderr);
      expect(resumed.stderr).not.toContain("API error");
      expect(resumed).toMatchObject({ code: 0, stdout: "finished\n" });
      const after = readTranscript(file);
      if (!after.ok) throw new Error(after.error);
      expect(after.messages.slice(0, reading.messages.length)).toEqual(reading.messages);
      expect(after.messages.at(-1)).toEqual({ role: "assistant", content: "finished" });
      expect(historyProblems(after.messages)).toEqual([]);
    }
    // The kills landed at more than one point of the conversation.
    expect(seen.size).toBeGreaterThan(1);
  }, 120_000);
});
