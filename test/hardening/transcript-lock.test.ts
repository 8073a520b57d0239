/**
 * One run per transcript: while a real agent run holds `--resume t.jsonl` (or a new `--transcript`),
 * a second one on the same file exits 2 saying it is in use, and writes nothing into it; once the first
 * ends (or is killed: the kernel drops its lock), the file can be resumed.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, readTranscriptLines, spawnCli, tempDir, writeFixtureSchemas } from "../cli/support.js";

const server = await startScriptedServer({ script: [] });
afterAll(() => server.close());

describe("a transcript is held by one run at a time", () => {
  for (const flag of ["--resume", "--transcript"] as const) {
    it(`a second run on the ${flag} file of a run in progress exits 2, "in use", and the file holds one conversation`, async () => {
      const dir = tempDir();
      const schemas = writeFixtureSchemas(dir);
      const transcript = path.join(dir, "t.jsonl");
      if (flag === "--resume") writeFileSync(transcript, `${JSON.stringify({ role: "user", content: "earlier" })}\n${JSON.stringify({ role: "assistant", content: "ok" })}\n`);
      server.setScript([{ content: "first answer", delayMs: 3_000 }, { content: "third answer" }]);
      const first = spawnCli(["--schemas", schemas, "--no-stream", flag, transcript, "first"], cliEnv(server.baseURL), dir);
      await server.waitForRequests(server.requests.length + 1, 20_000);
      const second = await spawnCli(["--schemas", schemas, "--no-stream", flag, transcript, "second"], cliEnv(server.baseURL), dir).done;
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`error: the transcript ${transcript} is in use by another sigloop run; wait for it to end, or choose another file\n`);
      const done = await first.done;
      expect(done.code).toBe(0);
      expect(done.stdout).toBe("first answer\n");
      const third = await spawnCli(["--schemas", schemas, "--no-stream", "--resume", transcript, "third"], cliEnv(server.baseURL), dir).done;
      expect(third.stderr).not.toContain("repaired");
      expect(third.code).toBe(0);
      const contents = readTranscriptLines(transcript).map((message) => message.content);
      expect(contents.filter((content) => content === "second")).toEqual([]);
      expect(contents.slice(-4)).toEqual(["first", "first answer", "third", "third answer"]);
    });
  }

  it("a run killed while it holds the file leaves it free for the next", async () => {
    const dir = tempDir();
    const schemas = writeFixtureSchemas(dir);
    const transcript = path.join(dir, "t.jsonl");
    server.setScript([{ content: "never sent", delayMs: 30_000 }, { content: "after the kill" }]);
    const first = spawnCli(["--schemas", schemas, "--no-stream", "--transcript", transcript, "first"], cliEnv(server.baseURL), dir);
    await server.waitForRequests(server.requests.length + 1, 20_000);
    first.kill("SIGKILL");
    await first.done;
    const next = await spawnCli(["--schemas", schemas, "--no-stream", "--resume", transcript, "next"], cliEnv(server.baseURL), dir).done;
    expect(next.stderr).not.toContain("in use");
    expect(next.code).toBe(0);
  });
});
