import { setImmediate as nextTurn } from "node:timers/promises";
import { expect, it } from "vitest";
import { coalescedOutput } from "../../src/cli/coalesced-output.js";
import { PassThrough } from "node:stream";
import { runAgentCli } from "../../src/cli/run-agent-cli.js";
import { cliEnv, useCliFixture } from "./support.js";

it("text written in one turn of the event loop goes out in one write, in order, at the end of that turn", async () => {
  const writes: string[] = [];
  const output = coalescedOutput((text) => writes.push(text));
  output.write("turn 1\n");
  output.write("");
  output.write("  → echo({})\n");
  expect(writes).toEqual([]);
  await nextTurn();
  expect(writes).toEqual(["turn 1\n  → echo({})\n"]);
  output.write("  ← echo ok: x\n");
  await nextTurn();
  expect(writes).toEqual(["turn 1\n  → echo({})\n", "  ← echo ok: x\n"]);
});

it("flush writes what is waiting at once, and nothing when nothing is", async () => {
  const writes: string[] = [];
  const output = coalescedOutput((text) => writes.push(text));
  output.flush();
  output.write("a");
  output.write("b");
  output.flush();
  expect(writes).toEqual(["ab"]);
  await nextTurn();
  expect(writes).toEqual(["ab"]);
});

const fx = useCliFixture();

it("the CLI writes each turn's progress in one write, out before that turn's request, and the answer after all of it", async () => {
  const before = fx.server.requests.length;
  const stderrWrites: string[] = [];
  const order: string[] = [];
  const turnLinesAtRequest: number[] = [];
  fx.server.setScript((request) => {
    turnLinesAtRequest.push(stderrWrites.join("").split("\n").filter((line) => line.startsWith("turn ")).length);
    const index = request.index - before;
    return index < 2 ? { toolCalls: [{ id: `c${index}`, name: "echo", arguments: `{"text":"call ${index}"}` }] } : { content: "Done." };
  });
  const stdin = new PassThrough();
  stdin.end();
  const code = await runAgentCli({
    argv: ["--schemas", fx.schemas, "--no-stream", "echo twice"],
    env: cliEnv(fx.server.baseURL),
    cwd: fx.dir,
    projectRoot: fx.dir,
    stdin,
    stdout: { write: (text: string) => order.push(`stdout: ${text}`) },
    stderr: { write: (text: string) => (stderrWrites.push(text), order.push(`stderr: ${text}`)) },
    onInterrupt: () => () => undefined,
    // Else the first call may wait for its module's import, and what a turn wrote before a wait goes out
    // then, as it should for a call that takes time.
    warmUp: "before-first-request",
  });
  fx.outputs.push(stderrWrites.join(""));
  expect(code).toBe(0);
  expect(turnLinesAtRequest).toEqual([1, 2, 3]);
  // After the first response, one write per turn: its tokens, its call, the result and the next turn's line.
  const turnWrites = stderrWrites.filter((text) => text.includes("← echo ok"));
  expect(turnWrites).toHaveLength(2);
  for (const text of turnWrites) expect(text).toMatch(/^ {2}tokens: [^\n]*\n {2}→ echo\([^\n]*\n {2}← echo ok: [^\n]*\nturn \d[^\n]*\n$/);
  expect(order.at(-1)).toBe("stdout: Done.\n");
  expect(order.at(-2)).toMatch(/answered after 3 turns/);
});
