/**
 * `npm run bench -- mcp-client`: the agent's MCP client against the SDK's own `Client`, in one process,
 * alternating rounds after a warm-up.
 * - Per call: `everything__echo` through the executor `connectMcpServers` gives the agent (parse, check,
 *   send, map the result) versus `Client.callTool` on its own server-everything; target ≤ 1.15x. A
 *   middle row runs `Client.callTool` over the agent's transport (the server in a session of its own),
 *   which tells the executor's own cost apart from the scheduler's (docs/mcp-client.md, Speed).
 * - Start-up: `connectMcpServers` with three stdio servers (server-everything, server-filesystem, the
 *   project's recording fault server) versus the slowest of the three started alone with the SDK
 *   (`StdioClientTransport`, connect, tools/list); target ≤ slowest + 0.2 s (they start in parallel).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { connectMcpServers } from "../src/runtime/mcp-client/connect-mcp-servers.js";
import { ProcessGroupTransport } from "../src/runtime/mcp-client/process-group-transport.js";
import type { McpConfig, StdioServerConfig } from "../src/runtime/mcp-client/mcp-config.js";
import type { ToolExecutor } from "../src/runtime/loop/types.js";
import { median, printTable } from "./table.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
const CALLS = 300;
const CALL_ROUNDS = 7;
const START_ROUNDS = 6;
const noLocalTools: ToolExecutor = { definitions: [], execute: async () => ({ status: "unknown_tool", content: "" }) };
const quiet = { onNotice: () => undefined, onServerStderr: () => undefined };

export async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "sigloop-mcp-client-bench-"));
  try {
    const servers: StdioServerConfig[] = [
      { name: "everything", type: "stdio", command: bin("mcp-server-everything"), args: ["stdio"], env: {} },
      { name: "fs", type: "stdio", command: bin("mcp-server-filesystem"), args: [dir], env: {} },
      { name: "rec", type: "stdio", command: process.execPath, args: [path.join(root, "test/fixtures/mcp-servers/fault-server.mjs"), "record"], env: {} },
    ];
    await perCall(servers[0]!);
    await startUp(servers);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function perCall(everything: StdioServerConfig): Promise<void> {
  const connected = await connectMcpServers({ config: { file: "bench", servers: [everything], warnings: [] }, local: noLocalTools, ...quiet });
  if (!connected.ok) throw new Error(connected.error);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: everything.command, args: everything.args, stderr: "ignore" }));
  // The same SDK client over the agent's transport: the server in a session of its own, as the agent runs it.
  const grouped = new Client({ name: "bench", version: "1" });
  await grouped.connect(new ProcessGroupTransport({ command: everything.command, args: everything.args, env: {}, onStderrLine: () => undefined }));
  const signal = new AbortController().signal;
  const call = { id: "b", type: "function" as const, function: { name: "everything__echo", arguments: '{"message":"hello"}' } };
  const ours = async () => {
    const outcome = await connected.servers.executor.execute(call, { workspace: root, signal });
    if (outcome.content !== "Echo: hello") throw new Error(`unexpected: ${outcome.content}`);
  };
  const sdk = async () => {
    await client.callTool({ name: "echo", arguments: { message: "hello" } });
  };
  const sdkGrouped = async () => {
    await grouped.callTool({ name: "echo", arguments: { message: "hello" } });
  };
  const timeOf = async (once: () => Promise<void>) => {
    const start = performance.now();
    for (let i = 0; i < CALLS; i++) await once();
    return (performance.now() - start) / CALLS;
  };
  const rounds: { ours: number; sdk: number; grouped: number }[] = [];
  try {
    for (let round = 0; round <= CALL_ROUNDS; round++) {
      process.stderr.write(`mcp-client-bench: per call, round ${round + 1}\n`);
      // Each round starts with another of the three, so none always runs on the warmest machine.
      const order = [ours, sdk, sdkGrouped];
      const times = new Map<() => Promise<void>, number>();
      for (let i = 0; i < order.length; i++) {
        const once = order[(i + round) % order.length]!;
        times.set(once, await timeOf(once));
      }
      if (round > 0) rounds.push({ ours: times.get(ours)!, sdk: times.get(sdk)!, grouped: times.get(sdkGrouped)! });
    }
  } finally {
    await connected.servers.close();
    await client.close();
    await grouped.close();
  }
  printTable(
    `MCP client: per call of server-everything's echo (${CALLS} sequential calls, median of ${CALL_ROUNDS} rounds after a warm-up; target ≤ 1.15x)`,
    ["path", "per call", "vs SDK"],
    [
      ["SDK Client.callTool", `${median(rounds.map((r) => r.sdk)).toFixed(3)} ms`, "1.00x"],
      ["SDK Client.callTool, the server in a session of its own (the agent's transport)", `${median(rounds.map((r) => r.grouped)).toFixed(3)} ms`, `${median(rounds.map((r) => r.grouped / r.sdk)).toFixed(2)}x`],
      ["the agent's executor (check, call, map)", `${median(rounds.map((r) => r.ours)).toFixed(3)} ms`, `**${median(rounds.map((r) => r.ours / r.sdk)).toFixed(2)}x**`],
    ],
  );
}

async function startUp(servers: StdioServerConfig[]): Promise<void> {
  const config: McpConfig = { file: "bench", servers, warnings: [] };
  const alone = async (server: StdioServerConfig): Promise<number> => {
    const start = performance.now();
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(new StdioClientTransport({ command: server.command, args: server.args, stderr: "ignore" }));
    await client.listTools();
    const ms = performance.now() - start;
    await client.close();
    return ms;
  };
  const together = async (): Promise<number> => {
    const start = performance.now();
    const connected = await connectMcpServers({ config, local: noLocalTools, ...quiet });
    const ms = performance.now() - start;
    if (!connected.ok || connected.servers.failures.length > 0) throw new Error("a server did not start");
    await connected.servers.close();
    return ms;
  };
  const rounds: { slowest: number; together: number }[] = [];
  for (let round = 0; round <= START_ROUNDS; round++) {
    process.stderr.write(`mcp-client-bench: start-up, round ${round + 1}\n`);
    const each: number[] = [];
    for (const server of servers) each.push(await alone(server));
    const ms = await together();
    if (round > 0) rounds.push({ slowest: Math.max(...each), together: ms });
  }
  printTable(
    `MCP client: start-up of three stdio servers to their tools (median of ${START_ROUNDS} rounds after a warm-up; target ≤ slowest + 0.2 s)`,
    ["what", "time", "vs slowest alone"],
    [
      ["slowest server alone (SDK: spawn, initialize, tools/list)", `${(median(rounds.map((r) => r.slowest)) / 1000).toFixed(3)} s`, ""],
      ["connectMcpServers, all three", `${(median(rounds.map((r) => r.together)) / 1000).toFixed(3)} s`, `**${signed(median(rounds.map((r) => r.together - r.slowest)) / 1000)} s**`],
    ],
  );
}

function signed(value: number): string {
  return `${value < 0 ? "−" : "+"}${Math.abs(value).toFixed(3)}`;
}
