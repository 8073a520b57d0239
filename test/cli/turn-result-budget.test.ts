/**
 * One turn of thousands of parallel tool calls, as a real process: the calls run a few at a time and share
 * one result budget, so the run ends with an answer in bounded memory, the request stays one an endpoint
 * accepts, and the transcript stays one a resume can load and send.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readTranscript } from "../../src/runtime/loop/transcript.js";
import { DEFAULT_TURN_RESULT_CHARS } from "../../src/runtime/compaction/turn-result-budget.js";
import { cliEnv, projectRoot, spawnCli, tempDir, useCliFixture, writeFixtureSchemas } from "./support.js";

const fx = useCliFixture();
const CALLS = 11_000;
const FILE_CHARS = 50_000;
/** What read_file returns for the file, before the executor cuts it to the call's share. */
const READ_RESULT_CHARS = 40_000 + "[read_file: lines 1-400 shown; the result reached its 40000-byte cap and the file goes on. Call read_file with offset 400 to read on.]".length;

/** The highest resident size of a running process, sampled from /proc until it exits (Linux). */
function watchResident(pid: number, exited: Promise<unknown>): Promise<number> {
  let peak = 0;
  const sample = () => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (match) peak = Math.max(peak, Number(match[1]) * 1024);
    } catch {
      // The process is gone.
    }
  };
  const timer = setInterval(sample, 50);
  return exited.then(() => {
    clearInterval(timer);
    return peak;
  });
}

describe.runIf(process.platform === "linux")("one turn of 11,000 parallel read_file calls of a 50,000-character file", () => {
  it("ends with an answer under 1 GB resident, each result cut to its share, and the transcript resumes", { timeout: 240_000 }, async () => {
    const workspace = tempDir();
    writeFileSync(path.join(workspace, "big.txt"), `${"x".repeat(99)}\n`.repeat(FILE_CHARS / 100));
    const transcript = path.join(workspace, "run.jsonl");
    const calls = Array.from({ length: CALLS }, (_, i) => ({ id: `c${i}`, name: "read_file", arguments: '{"path":"big.txt"}' }));
    fx.server.setScript([{ toolCalls: calls }, { content: "read them all" }, { content: "resumed" }]);
    const before = fx.server.requests.length;
    const schemas = writeFixtureSchemas(tempDir(), path.join(projectRoot, "tools"));
    const child = spawnCli(["--schemas", schemas, "--workspace", workspace, "--no-stream", "--transcript", transcript, "read big.txt many times"], cliEnv(fx.server.baseURL));
    const peak = await watchResident(child.pid ?? 0, child.done);
    const run = await child.done;
    fx.outputs.push(run.stdout.slice(0, 1000), run.stderr.slice(-2000));

    expect(run.stdout).toBe("read them all\n");
    expect(run.code).toBe(0);
    console.info(`read_file budget: ${CALLS} calls × ${FILE_CHARS} characters, peak resident ${Math.round(peak / 1024 ** 2)} MB`);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(1024 ** 3);

    const second = fx.server.requests[before + 1];
    expect(second?.violations).toEqual([]);
    const results = (second?.body?.messages as Array<{ role: string; content: string }>).filter((m) => m.role === "tool");
    expect(results).toHaveLength(CALLS);
    const share = Math.floor(DEFAULT_TURN_RESULT_CHARS / CALLS);
    expect(results[0]?.content).toBe(
      `${"x".repeat(share)}\n[truncated: showing the first ${share} of ${READ_RESULT_CHARS} characters; the calls of one turn share one budget, so fewer calls per turn get more each]`,
    );
    expect(statSync(transcript).size).toBeLessThan(8 * 1024 * 1024);

    const reading = readTranscript(transcript);
    expect(reading.ok && reading.messages.length).toBe(2 + 1 + CALLS + 1);
    const resumed = spawnCli(["--schemas", schemas, "--workspace", workspace, "--no-stream", "--resume", transcript, "and now?"], cliEnv(fx.server.baseURL));
    const again = await resumed.done;
    fx.outputs.push(again.stdout, again.stderr.slice(-2000));
    expect(again.stdout).toBe("resumed\n");
    expect(again.code).toBe(0);
    expect(fx.server.requests.at(-1)?.violations).toEqual([]);
  });
});
