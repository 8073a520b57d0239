/**
 * The real MCP server runs at most `--max-concurrent-calls N` calls at once (default 16, the loop's),
 * however many a client pipelines: 10,000 pipelined calls are each answered, never more than N at a
 * time, and the server's peak memory stays under 512 MB.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { initializeRaw, resultText, type RawRun } from "../mcp/support.js";
import { serversKilledAfterEach, toolFolder } from "./support.js";

const TOOLS = {
  "busy.ts": [
    "let running = 0;",
    "let most = 0;",
    "/** Holds a slot a moment and says how many ran at once at most so far. */",
    "export async function busy(): Promise<string> {",
    "  running += 1;",
    "  most = Math.max(most, running);",
    "  await new Promise((resolve) => setTimeout(resolve, 1));",
    "  running -= 1;",
    "  return String(most);",
    "}",
    "",
  ].join("\n"),
};

const spawnServer = serversKilledAfterEach();

/** Pipelines `count` calls in one write and resolves with every answer's text. */
async function pipeline(server: RawRun, count: number): Promise<string[]> {
  const lines = Array.from({ length: count }, (_, id) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "busy", arguments: {} } }));
  const answers = Array.from({ length: count }, (_, id) => server.next((message) => message.id === id));
  server.child.stdin.write(`${lines.join("\n")}\n`);
  return (await Promise.all(answers)).map((answer) => resultText(answer.result as object));
}

function peakMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

describe("the MCP server queues pipelined calls", () => {
  it("10,000 pipelined calls: every one answered, at most 16 at once, under 512 MB", async () => {
    const folder = toolFolder(TOOLS);
    const run = spawnServer(["--workspace", folder.dir, "--schemas", folder.schemas]);
    await initializeRaw(run);
    const answers = await pipeline(run, 10_000);
    expect(answers).toHaveLength(10_000);
    expect(Math.max(...answers.map(Number))).toBe(16);
    expect(peakMegabytes(run.child.pid!)).toBeLessThan(512);
  }, 180_000);

  it("--max-concurrent-calls 3 runs three at a time; a bad value is refused (exit 2)", async () => {
    const folder = toolFolder(TOOLS);
    const run = spawnServer(["--workspace", folder.dir, "--schemas", folder.schemas, "--max-concurrent-calls", "3"]);
    await initializeRaw(run);
    const answers = await pipeline(run, 200);
    expect(Math.max(...answers.map(Number))).toBe(3);
    const bad = spawnServer(["--workspace", folder.dir, "--schemas", folder.schemas, "--max-concurrent-calls=0"]);
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr()).toContain('error: --max-concurrent-calls needs a whole number of at least 1, got "0"\n');
  }, 60_000);
});
