/**
 * MCP servers under the real agent process: Ctrl-C and SIGTERM during a call send
 * `notifications/cancelled` for that call alone, exit 130 / 143, and leave no process behind, not even
 * one a server started itself (each server's whole process group is ended); a terminal's Ctrl-C (sent
 * to the agent's whole group) reaches the agent alone; an answer and an error close every server too.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { httpError } from "../../src/scripted-server/scripted-server.js";
import { faultServer, recorded } from "../support/mcp-fault-server.js";
import { cliEnv, spawnCli, tempDir, useCliFixture } from "./support.js";

const fx = useCliFixture();

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
        rec: faultServer("record", record),
        kids: faultServer("spawn-child", spawned),
      },
    }),
  );
  return { config, record, spawned };
}

const shout = (id: string) => ({ toolCalls: [{ id, name: "rec__shout", arguments: '{"text":"x"}' }] });
const slow = { toolCalls: [{ id: "s1", name: "rec__slow", arguments: "{}" }] };

/** Waits until neither the server nor the process it started is left. */
async function noneLeft(record: string, spawned: string): Promise<void> {
  const serverPid = recorded(record)[0]!.pid as number;
  const childPid = recorded(spawned)[0]!.child as number;
  await until(() => !alive(serverPid) && !alive(childPid), 3000);
}

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  it(`${signal} during a call: that call alone is cancelled on the server, exit ${code}, no process left`, async () => {
    const { config, record, spawned } = setup();
    fx.server.setScript([shout("a"), shout("b"), slow, { content: "never" }]);
    const agent = spawnCli(["--schemas", fx.schemas, "--mcp", config, "--allow", "*", "--no-stream", "wait"], cliEnv(fx.server.baseURL));
    await until(() => recorded(record).some((entry) => entry.call === "slow"));
    const childPid = recorded(spawned)[0]!.child as number;
    expect(alive(childPid)).toBe(true);
    agent.kill(signal);
    const run = await agent.done;
    expect(run.code).toBe(code);
    // The two answered calls are not cancelled after the fact.
    expect(recorded(record).filter((entry) => entry.cancelled !== undefined)).toEqual([{ cancelled: { requestId: expect.anything(), reason: expect.any(String) } }]);
    await noneLeft(record, spawned);
  });
}

it("a terminal's Ctrl-C (SIGINT to the agent's whole process group) reaches the agent alone: it cancels the call, exit 130, no process left", async () => {
  const { config, record, spawned } = setup();
  fx.server.setScript([slow, { content: "never" }]);
  const agent = spawnCli(["--schemas", fx.schemas, "--mcp", config, "--allow", "*", "--no-stream", "wait"], cliEnv(fx.server.baseURL), undefined, { asTerminalJob: true });
  await until(() => recorded(record).some((entry) => entry.call === "slow"));
  process.kill(-agent.pid!, "SIGINT");
  const run = await agent.done;
  expect(run.code).toBe(130);
  // Still running when the agent cancelled: the signal did not reach the server.
  expect(recorded(record).find((entry) => entry.cancelled !== undefined)).toMatchObject({ cancelled: { requestId: expect.anything() } });
  await noneLeft(record, spawned);
});

it("an answer closes every server, and what they started", async () => {
  const { config, record, spawned } = setup();
  fx.server.setScript([shout("a"), { content: "done" }]);
  const agent = spawnCli(["--schemas", fx.schemas, "--mcp", config, "--allow", "*", "--no-stream", "go"], cliEnv(fx.server.baseURL));
  const run = await agent.done;
  expect(run).toMatchObject({ code: 0, stdout: "done\n" });
  await noneLeft(record, spawned);
});

it("an error that ends the run closes every server, and what they started", async () => {
  const { config, record, spawned } = setup();
  fx.server.setScript([shout("a"), httpError(400, "This model does not accept these messages.")]);
  const agent = spawnCli(["--schemas", fx.schemas, "--mcp", config, "--allow", "*", "--no-stream", "go"], cliEnv(fx.server.baseURL));
  const run = await agent.done;
  expect(run.code).toBe(3);
  expect(run.stderr).toContain("This model does not accept these messages.");
  await noneLeft(record, spawned);
});
