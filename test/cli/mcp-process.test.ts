/**
 * MCP servers under the real agent process: Ctrl-C and SIGTERM during a call send
 * `notifications/cancelled`, exit 130 / 143, and leave no process behind, not even one a server started
 * itself (each server's whole process group is ended); an answer closes every server too.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, projectRoot, spawnCli, tempDir, writeFixtureSchemas } from "./support.js";

const FAULT_SERVER = path.join(projectRoot, "test/fixtures/mcp-servers/fault-server.mjs");
let server: ScriptedServer;
let schemas: string;

beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
  schemas = writeFixtureSchemas(tempDir());
});
afterAll(() => server.close());

function recorded(file: string): Array<Record<string, unknown>> {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function until(condition: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function setup(): { config: string; record: string; spawned: string } {
  const dir = tempDir();
  const record = path.join(dir, "record.jsonl");
  const spawned = path.join(dir, "spawned.jsonl");
  const config = path.join(dir, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        rec: { command: process.execPath, args: [FAULT_SERVER, "record"], env: { RECORD_FILE: record } },
        kids: { command: process.execPath, args: [FAULT_SERVER, "spawn-child"], env: { RECORD_FILE: spawned } },
      },
    }),
  );
  return { config, record, spawned };
}

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  it(`${signal} during a call: the call is cancelled on the server, exit ${code}, no process left`, async () => {
    const { config, record, spawned } = setup();
    server.setScript([{ toolCalls: [{ id: "s1", name: "rec__slow", arguments: "{}" }] }, { content: "never" }]);
    const agent = spawnCli(["--schemas", schemas, "--mcp", config, "--no-stream", "wait"], cliEnv(server.baseURL));
    await until(() => recorded(record).some((entry) => entry.call === "slow"));
    const serverPid = recorded(record)[0]!.pid as number;
    const childPid = recorded(spawned)[0]!.child as number;
    expect(alive(childPid)).toBe(true);
    agent.kill(signal);
    const run = await agent.done;
    expect(run.code).toBe(code);
    expect(recorded(record).find((entry) => entry.cancelled !== undefined)).toMatchObject({ cancelled: { requestId: expect.anything() } });
    await until(() => !alive(serverPid) && !alive(childPid), 3000);
  });
}

it("an answer closes every server, and what they started", async () => {
  const { config, record, spawned } = setup();
  server.setScript([{ toolCalls: [{ id: "a", name: "rec__shout", arguments: '{"text":"x"}' }] }, { content: "done" }]);
  const agent = spawnCli(["--schemas", schemas, "--mcp", config, "--no-stream", "go"], cliEnv(server.baseURL));
  const run = await agent.done;
  expect(run).toMatchObject({ code: 0, stdout: "done\n" });
  const serverPid = recorded(record)[0]!.pid as number;
  const childPid = recorded(spawned)[0]!.child as number;
  await until(() => !alive(serverPid) && !alive(childPid), 3000);
});
