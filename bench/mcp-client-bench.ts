/**
 * `npm run bench -- mcp-client`: the agent's MCP client against the SDK's own `Client`.
 * - Per call, as users run it (the headline; target ≤ 1.15x): `npm run agent -- --mcp FILE` (the process
 *   it starts, npm's own start-up left out; default flags but for `--max-turns`, so streaming) against the
 *   zero-latency scripted model, which calls server-everything's `echo` once a turn for 100 turns, versus
 *   a plain node process doing the same with the two SDKs a user would pick (bench/baselines/
 *   runtools-mcp-agent.mjs: openai-node's `runTools`, Ajv, `Client.callTool` over the SDK's
 *   `StdioClientTransport`). Per call = the time from the first model request to the last / 100, so
 *   start-up and exit are left out; rounds alternate, the ratio is the median of the per-round ratios.
 * - Per call, in one process (where the time goes): `everything__echo` through the executor
 *   `connectMcpServers` gives the agent (parse, check, send, map the result) versus `Client.callTool` on
 *   its own server-everything, and `Client.callTool` over the agent's transport (the server in a process
 *   group of its own), which tells the executor's own cost apart from the transport's.
 * - Start-up: `connectMcpServers` with three stdio servers (server-everything, server-filesystem, the
 *   project's recording fault server) versus the slowest of the three started alone with the SDK
 *   (`StdioClientTransport`, connect, tools/list); target ≤ slowest + 0.2 s (they start in parallel). A
 *   middle row starts the three in parallel with the SDK: what the machine allows (on two busy cores,
 *   three starts in one scheduling group share it), so the client's own part shows apart from it; a
 *   floor row says what no client can beat: the servers' own CPU time (from /proc, Linux) over the cores.
 */
import { execFileSync, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { connectMcpServers } from "../src/runtime/mcp-client/connect-mcp-servers.js";
import { ProcessGroupTransport } from "../src/runtime/mcp-client/process-group-transport.js";
import type { McpConfig, StdioServerConfig } from "../src/runtime/mcp-client/mcp-config.js";
import type { ToolExecutor } from "../src/runtime/loop/types.js";
import { runGen } from "../src/gen/command/run-gen.js";
import { startScriptedServer, type RecordedRequest, type ScriptStep } from "../src/scripted-server/scripted-server.js";
import { toolResults } from "./agent-process-bench.js";
import { npmScriptArgs } from "./npm-script.js";
import { median, printTable } from "./table.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
const CALLS = 300;
const CALL_ROUNDS = 7;
const START_ROUNDS = 6;
const PROCESS_CALLS = 100;
const PROCESS_ROUNDS = 7;
const PROMPT = "Echo hello, 100 times.";
/** Distinctive, so the CLI's secret scrubbing does not mask words in its messages. */
const BENCH_KEY = "sk-mcp-client-bench-0000";
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
    await perCallAsUsersRun(dir, servers[0]!);
    await perCall(servers[0]!);
    await startUp(servers);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function perCallAsUsersRun(dir: string, everything: StdioServerConfig): Promise<void> {
  const schemas = path.join(dir, "schemas.json");
  if (runGen(["--tools", path.join(root, "tools"), "--out", schemas], { cwd: root, stdout: () => {}, stderr: () => {} }) !== 0) throw new Error("gen failed on tools/");
  const mcpFile = path.join(dir, "mcp.json");
  writeFileSync(mcpFile, JSON.stringify({ mcpServers: { everything: { command: everything.command, args: everything.args } } }));
  // When each request of a run came, by the number of tool results it carries (0 … PROCESS_CALLS).
  let arrivals: number[] = [];
  const script = (request: RecordedRequest): ScriptStep => {
    const results = toolResults(request);
    arrivals[results] = performance.now();
    if (results >= PROCESS_CALLS) return { content: "done" };
    return { toolCalls: [{ id: `call_${results}`, name: "everything__echo", arguments: '{"message":"hello"}' }] };
  };
  // runTools echoes the SDK's own `parsed` fields in history, which the strict server refuses; its
  // requests are accepted (and flagged) so that it can serve as the baseline at all.
  const server = await startScriptedServer({ script, flagRuleViolationsOnly: true });
  const stderrFile = path.join(dir, "stderr.txt");
  const perCallOf = async (command: readonly string[]): Promise<number> => {
    arrivals = [];
    const stderrFd = openSync(stderrFile, "w");
    const child = spawn(command[0]!, command.slice(1), {
      cwd: root,
      env: { ...process.env, ANTHROPIC_API_KEY: "", INIT_CWD: dir, OPENAI_API_KEY: BENCH_KEY, OPENAI_BASE_URL: server.baseURL, AGENT_MODEL: "bench", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", stderrFd],
    });
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    closeSync(stderrFd);
    const first = arrivals[0];
    const last = arrivals[PROCESS_CALLS];
    if (code !== 0 || stdout.trim() !== "done" || first === undefined || last === undefined) {
      throw new Error(`${command.join(" ").slice(0, 200)} exited ${String(code)}: ${readFileSync(stderrFile, "utf8").slice(-800)}`);
    }
    return (last - first) / PROCESS_CALLS;
  };
  const commands = {
    agent: [process.execPath, ...npmScriptArgs(root, "agent"), "--schemas", schemas, "--mcp", mcpFile, "--max-turns", String(PROCESS_CALLS + 1), PROMPT],
    baseline: [process.execPath, path.join(root, "bench", "baselines", "runtools-mcp-agent.mjs"), String(PROCESS_CALLS + 1), everything.command, PROMPT],
  };
  const rounds: { agent: number; baseline: number }[] = [];
  try {
    for (let round = 0; round <= PROCESS_ROUNDS; round++) {
      process.stderr.write(`mcp-client-bench: per call as users run it, round ${round + 1}\n`);
      const order = round % 2 === 0 ? (["agent", "baseline"] as const) : (["baseline", "agent"] as const);
      const measured = { agent: 0, baseline: 0 };
      for (const name of order) measured[name] = await perCallOf(commands[name]);
      // Round 1 warms the file cache and the compiled sources' cache.
      if (round > 0) rounds.push(measured);
    }
  } finally {
    await server.close();
  }
  printTable(
    `MCP client as users run it: per call of server-everything's echo, one a turn for ${PROCESS_CALLS} turns, a process each, zero-latency model (median of ${PROCESS_ROUNDS}, alternating; target ≤ 1.15x)`,
    ["process", "per call (turn)", "vs baseline"],
    [
      ["baseline: openai `runTools` + Ajv + SDK `Client.callTool` (node)", `${median(rounds.map((r) => r.baseline)).toFixed(3)} ms`, "1.00x"],
      ["`npm run agent -- --mcp FILE` (without npm)", `${median(rounds.map((r) => r.agent)).toFixed(3)} ms`, `**${median(rounds.map((r) => r.agent / r.baseline)).toFixed(2)}x**`],
    ],
  );
}

async function perCall(everything: StdioServerConfig): Promise<void> {
  const connected = await connectMcpServers({ config: { file: "bench", servers: [everything], warnings: [] }, local: noLocalTools, ...quiet });
  if (!connected.ok) throw new Error(connected.error);
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: everything.command, args: everything.args, stderr: "ignore" }));
  // The same SDK client over the agent's transport: the server in a process group of its own, as the agent runs it.
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
    `MCP client in one process: per call of server-everything's echo (${CALLS} sequential calls, median of ${CALL_ROUNDS} rounds after a warm-up)`,
    ["path", "per call", "vs SDK"],
    [
      ["SDK Client.callTool", `${median(rounds.map((r) => r.sdk)).toFixed(3)} ms`, "1.00x"],
      ["SDK Client.callTool over the agent's transport (the server in a process group of its own)", `${median(rounds.map((r) => r.grouped)).toFixed(3)} ms`, `${median(rounds.map((r) => r.grouped / r.sdk)).toFixed(2)}x`],
      ["the agent's executor (check, call, map)", `${median(rounds.map((r) => r.ours)).toFixed(3)} ms`, `**${median(rounds.map((r) => r.ours / r.sdk)).toFixed(2)}x**`],
    ],
  );
}

async function startUp(servers: StdioServerConfig[]): Promise<void> {
  const config: McpConfig = { file: "bench", servers, warnings: [] };
  // Each server's own CPU time from its spawn to its tools listed, read before it is closed.
  const cpuMs = new Map<StdioServerConfig, number>();
  const alone = async (server: StdioServerConfig): Promise<number> => {
    const start = performance.now();
    const client = new Client({ name: "bench", version: "1" });
    const transport = new StdioClientTransport({ command: server.command, args: server.args, stderr: "ignore" });
    await client.connect(transport);
    await client.listTools();
    const ms = performance.now() - start;
    if (transport.pid !== null) cpuMs.set(server, processCpuMs(transport.pid));
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
  const sdkTogether = async (): Promise<number> => {
    const start = performance.now();
    await Promise.all(servers.map(alone));
    return performance.now() - start;
  };
  const rounds: { slowest: number; together: number; sdkTogether: number; floor: number }[] = [];
  for (let round = 0; round <= START_ROUNDS; round++) {
    process.stderr.write(`mcp-client-bench: start-up, round ${round + 1}\n`);
    const each: number[] = [];
    for (const server of servers) each.push(await alone(server));
    // The machine's floor for three starts at once: their CPU time shared by its cores, or the slowest.
    const floor = Math.max(Math.max(...each), servers.reduce((sum, server) => sum + (cpuMs.get(server) ?? 0), 0) / availableParallelism());
    // Each round starts with the other of the two parallel starts.
    const [first, second] = round % 2 === 0 ? [together, sdkTogether] : [sdkTogether, together];
    const times = new Map([[first, await first()], [second, await second()]]);
    if (round > 0) rounds.push({ slowest: Math.max(...each), together: times.get(together)!, sdkTogether: times.get(sdkTogether)!, floor });
  }
  const seconds = (values: number[]) => `${(median(values) / 1000).toFixed(3)} s`;
  printTable(
    `MCP client: start-up of three stdio servers to their tools (median of ${START_ROUNDS} rounds after a warm-up; target ≤ slowest + 0.2 s)`,
    ["what", "time", "vs slowest alone"],
    [
      ["slowest server alone (SDK: spawn, initialize, tools/list)", seconds(rounds.map((r) => r.slowest)), ""],
      [`floor: the three servers' own CPU time from spawn to tools listed, shared by ${availableParallelism()} cores`, seconds(rounds.map((r) => r.floor)), `${signed(median(rounds.map((r) => r.floor - r.slowest)) / 1000)} s`],
      ["the SDK, all three in parallel (what the machine allows)", seconds(rounds.map((r) => r.sdkTogether)), `${signed(median(rounds.map((r) => r.sdkTogether - r.slowest)) / 1000)} s`],
      ["connectMcpServers, all three", seconds(rounds.map((r) => r.together)), `**${signed(median(rounds.map((r) => r.together - r.slowest)) / 1000)} s**`],
    ],
  );
}

/** A Linux process's user + system CPU time so far, in ms (`/proc/<pid>/stat`, in clock ticks). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  clockTicks ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

/** Clock ticks a second (`getconf CLK_TCK`), asked once, when the start-up table is measured. */
let clockTicks: number | undefined;

function signed(value: number): string {
  return `${value < 0 ? "−" : "+"}${Math.abs(value).toFixed(3)}`;
}
