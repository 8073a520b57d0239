/**
 * A response discarded for `length` is not part of the answer: on a terminal its streamed text is redrawn
 * struck through (replaced by a note without colours); in a log (not a terminal) it stays as it was
 * written, followed by the line saying it was discarded.
 */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProgressReporter } from "../../src/cli/progress-reporter.js";
import type { AgentEvent } from "../../src/runtime/loop/agent-events.js";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, projectRoot, tempDir, writeFixtureSchemas } from "./support.js";

const usage = { promptTokens: 10, completionTokens: 5, cachedTokens: 0 };
const cutTurn: AgentEvent[] = [
  { type: "turn_start", turn: 1, maxTurns: 10 },
  { type: "text_delta", turn: 1, text: "twelve chars" },
  { type: "text_delta", turn: 1, text: " and a second line\nend" },
  { type: "turn_end", turn: 1, finishReason: "length", toolCalls: 0, usage },
  { type: "length_retry", turn: 1, attempt: 1, maxRetries: 2 },
] as AgentEvent[];

function drawn(colors: boolean, terminal?: { columns: number }): string {
  let out = "";
  const reporter = createProgressReporter({ write: (text) => (out += text) }, colors, undefined, terminal);
  for (const event of cutTurn) reporter.onEvent(event);
  return out;
}

const RETRY_LINE = '  the response was cut off by the token limit (finish_reason "length"): discarded, its tool calls not run; asking again (retry 1 of 2)\n';

describe("the discarded text", () => {
  it("on a 20-column terminal without colours: the rows it took (2 + 1, and 2 of the tokens line) are cleared and a note takes its place", () => {
    const out = drawn(false, { columns: 20 });
    expect(out).toBe(
      "turn 1 (at most 10 per prompt)\ntwelve chars and a second line\nend\n  tokens: 10 in (0 cached), 5 out\n" +
        "\u001b[5F\u001b[J[discarded: 34 characters cut off by the token limit, not part of the answer]\n  tokens: 10 in (0 cached), 5 out\n" +
        RETRY_LINE,
    );
  });

  it("with colours: the same text, struck through and dim, line by line", () => {
    const out = drawn(true, { columns: 80 });
    expect(out).toContain("\u001b[3F\u001b[J\u001b[2;9mtwelve chars and a second line\u001b[0m\n\u001b[2;9mend\u001b[0m\n");
  });

  it("not on a terminal: written once, then the line saying it was discarded", () => {
    expect(drawn(false)).toBe("turn 1 (at most 10 per prompt)\ntwelve chars and a second line\nend\n  tokens: 10 in (0 cached), 5 out\n" + RETRY_LINE);
  });
});

const hasScript = spawnSync("script", ["--version"]).status === 0;
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
});
afterAll(() => server.close());

it.skipIf(!hasScript)("the real CLI on a terminal strikes the discarded reply through; the answer is the next one", async () => {
  server.setScript([{ content: "a reply cut short by the tok", finishReason: "length" }, { content: "the answer" }]);
  const schemas = writeFixtureSchemas(tempDir());
  const command = [process.execPath, "--import", "tsx", path.join(projectRoot, "scripts/agent.ts"), "--schemas", schemas, "hi"].map((part) => `'${part}'`).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: projectRoot, env: { PATH: process.env.PATH, TERM: "xterm", ...cliEnv(server.baseURL, { NO_COLOR: "" }) }, stdio: ["pipe", "pipe", "pipe"] });
  let screen = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (screen += chunk));
  expect(await new Promise((resolve) => child.on("close", resolve))).toBe(0);
  expect(screen).toMatch(/\u001b\[2F\u001b\[J\u001b\[2;9ma reply cut short by the tok\u001b\[0m\r?\n/);
  expect(screen).toContain("answered after 2 turns");
}, 60_000);
