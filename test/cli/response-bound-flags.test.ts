/**
 * The CLI's bounds on time and size, as a user meets them: a duration no Node.js timer holds is refused
 * before anything runs, and a response that never ends or grows without end is cut, resent at most twice
 * with a line each on stderr, then reported (exit 3).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { MAX_TIMER_MS } from "../../src/shared/timer-limit.js";
import { cliEnv, runCliInProcess, useCliFixture, type CliRun } from "./support.js";

const fx = useCliFixture();
beforeEach(() => fx.server.setScript([]));

async function cli(argv: string[]): Promise<CliRun> {
  const run = await runCliInProcess(["--schemas", fx.schemas, ...argv], cliEnv(fx.server.baseURL), fx.dir);
  fx.outputs.push(run.stdout, run.stderr);
  return run;
}

describe("duration flags", () => {
  it.each(["--tool-timeout", "--idle-timeout", "--request-timeout", "--response-timeout"])(
    "%s above 2147483647 ms is refused with exit 2, naming the flag and the limit, before any request",
    async (flag) => {
      const before = fx.server.requests.length;
      const run = await cli(["hi", flag, "3000000000"]);
      expect(run).toMatchObject({ code: 2, stdout: "" });
      expect(run.stderr).toContain(`error: ${flag} can be at most 2147483647 ms (about 24.8 days, the longest a Node.js timer holds), got 3000000000`);
      expect(fx.server.requests).toHaveLength(before);
    },
  );

  it("the limit itself is accepted, and the run answers", async () => {
    fx.server.setScript([{ content: "fine" }]);
    const run = await cli(["hi", "--idle-timeout", String(MAX_TIMER_MS), "--request-timeout", String(MAX_TIMER_MS), "--response-timeout", String(MAX_TIMER_MS)]);
    expect(run).toMatchObject({ code: 0, stdout: "fine\n" });
    expect(run.stderr).not.toContain("Warning");
  });
});

describe("response bounds", () => {
  it("--response-timeout cuts a stream that never ends (a comment every 50 ms): two retries on stderr, then exit 3", async () => {
    fx.server.setScript(() => ({ fault: "endless", send: "comment" }));
    const run = await cli(["hi", "--response-timeout", "300"]);
    expect(run).toMatchObject({ code: 3, stdout: "" });
    const cut = `timeout: the response from ${fx.server.baseURL} did not end within 300 ms of its start; the partial response was dropped`;
    expect(run.stderr).toContain(`the response broke after its headers and was dropped (${cut}); retry 1 of 2`);
    expect(run.stderr).toContain(`the response broke after its headers and was dropped (${cut}); retry 2 of 2`);
    expect(run.stderr).toContain(`error: ${cut}`);
  });

  it("--max-response-bytes cuts a response that grows without end, then exit 3 naming the bound", async () => {
    fx.server.setScript(() => ({ fault: "endless", send: "delta", everyMs: 5, deltaChars: 16 * 1024 }));
    const run = await cli(["hi", "--max-response-bytes", "100000", "--no-stream"]);
    expect(run).toMatchObject({ code: 3, stdout: "" });
    expect(run.stderr.match(/sent more than 100000 bytes in one response/g)).toHaveLength(3);
  });

  it("--max-response-bytes raises the bound for a user who needs more", async () => {
    const content = "w".repeat(9 * 1024 * 1024);
    fx.server.setScript([{ content, stream: { chunkSize: 256 * 1024 } }]);
    const run = await cli(["hi", "--max-response-bytes", String(16 * 1024 * 1024), "--no-stream"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${content}\n`);
  });
});
