/**
 * `npm run bench -- mcp-http`: `sigloop mcp --http` under 50 concurrent clients calling a trivial tool,
 * against a floor: a minimal server written with the same SDK (node:http, StreamableHTTPServerTransport,
 * one session per client, one hand-written tool). Both run as processes started the same way (node --import tsx),
 * alternately, the same SDK client driving them from this process; the first round is a warm-up. The
 * server's CPU time per call is reported beside calls/s: on a shared machine it depends far less on
 * what else runs. Then
 * the memory each idle session holds: the server's resident size before and after opening sessions
 * that only initialize.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { median, printTable } from "./table.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CLIENTS = 50;
const ROUNDS = 4;
const ROUND_MS = 4000;
const IDLE_SESSIONS = 500;

const FLOOR = `import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const sessions = new Map<string, StreamableHTTPServerTransport>();
const http = createServer(async (req, res) => {
  const id = req.headers["mcp-session-id"];
  if (typeof id === "string") {
    const known = sessions.get(id);
    if (known === undefined) return void res.writeHead(404).end();
    return known.handleRequest(req, res);
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sid) => void sessions.set(sid, transport) });
  transport.onclose = () => void (transport.sessionId && sessions.delete(transport.sessionId));
  const server = new Server({ name: "floor", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: "get_time", description: "The current time.", inputSchema: { type: "object", properties: {}, required: [] } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: "text", text: new Date().toISOString() }] }));
  await server.connect(transport);
  await transport.handleRequest(req, res);
});
http.listen(0, "127.0.0.1", () => {
  const address = http.address();
  process.stderr.write(\`listening on http://127.0.0.1:\${typeof address === "object" && address ? address.port : 0}/mcp\\n\`);
});
process.on("SIGTERM", () => process.exit(143));
`;

interface Load {
  callsPerSecond: number;
  p50: number;
  p99: number;
  /** The server process's CPU time per call (user + system), in ms; NaN where /proc is missing. */
  cpuPerCall: number;
}

export async function run(): Promise<void> {
  // Inside the project (git-ignored tmp/), so the floor resolves the SDK from the project's node_modules.
  const work = path.join(root, "tmp", `mcp-http-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  try {
    const floorFile = path.join(work, "floor.ts");
    writeFileSync(floorFile, FLOOR);
    const variants: [string, string, string[]][] = [
      ["floor: the SDK's Streamable HTTP transport on node:http, one hand-written tool", floorFile, []],
      ["sigloop mcp --http, default tools", path.join(root, "scripts", "mcp.ts"), ["--workspace", work, "--http", "0", "--max-sessions", "1000"]],
    ];
    const loads = new Map<string, Load[]>(variants.map(([name]) => [name, []]));
    const memory = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, file, args] of variants) {
        process.stderr.write(`mcp-http-bench: ${name}, round ${round + 1}\n`);
        const server = await startServer(file, args, work);
        try {
          const load = await measureLoad(server);
          if (round > 0) loads.get(name)!.push(load);
        } finally {
          await server.stop();
        }
      }
    }
    for (const [name, file, args] of variants) {
      process.stderr.write(`mcp-http-bench: ${name}, idle sessions\n`);
      // A fresh process, so the heap a load round left behind does not hide the sessions' growth.
      const server = await startServer(file, args, work);
      try {
        const bytes = await idleSessionBytes(server);
        if (bytes !== undefined) memory.set(name, bytes);
      } finally {
        await server.stop();
      }
    }
    const floorName = variants[0]![0];
    const floor = summary(loads.get(floorName)!);
    printTable(
      `MCP over HTTP: ${CLIENTS} concurrent clients calling get_time (${ROUNDS - 1} rounds of ${ROUND_MS / 1000} s after a warm-up, medians; targets ≥ 0.9x calls/s, ≤ 1.2x p99)`,
      ["server", "calls/s", "vs floor", "p50", "p99", "p99 vs floor", "server CPU per call", "vs floor", `memory per idle session (${IDLE_SESSIONS} opened)`],
      variants.map(([name]) => {
        const own = summary(loads.get(name)!);
        const bytes = memory.get(name);
        return [
          name,
          own.callsPerSecond.toFixed(0),
          `${(own.callsPerSecond / floor.callsPerSecond).toFixed(2)}x`,
          `${own.p50.toFixed(1)} ms`,
          `${own.p99.toFixed(1)} ms`,
          `${(own.p99 / floor.p99).toFixed(2)}x`,
          `${own.cpuPerCall.toFixed(2)} ms`,
          `${(own.cpuPerCall / floor.cpuPerCall).toFixed(2)}x`,
          bytes === undefined ? "n/a" : `${(bytes / 1024).toFixed(1)} KiB`,
        ];
      }),
    );
    process.stdout.write(`Node ${process.version}; each server a process started with node --import tsx; clients: the SDK's Client over StreamableHTTPClientTransport in the bench process.\n\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function summary(loads: readonly Load[]): Load {
  const of = (pick: (load: Load) => number): number => median(loads.map(pick));
  return { callsPerSecond: of((load) => load.callsPerSecond), p50: of((load) => load.p50), p99: of((load) => load.p99), cpuPerCall: of((load) => load.cpuPerCall) };
}

interface RunningServer {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

let started = 0;

async function startServer(file: string, args: readonly string[], cwd: string): Promise<RunningServer> {
  // stderr goes to a file, as a service's log does: a pipe this busy process reads late would block the
  // server's synchronous log writes and time the bench instead of the server.
  const logFile = path.join(cwd, `server-${(started += 1)}.log`);
  const log = openSync(logFile, "w");
  // tsx's loader in the server's own process (not tsx's CLI, which would be a parent process): its pid is the server's.
  const child = spawn(process.execPath, ["--import", "tsx", file, ...args], { cwd, stdio: ["ignore", "ignore", log] });
  closeSync(log);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on("close", () => resolve()));
  void exit.then(() => (exited = true));
  let url: string | undefined;
  while (url === undefined) {
    if (exited) throw new Error(`${path.basename(file)} exited before listening: ${readFileSync(logFile, "utf8").slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    url = /listening on (\S+)\n/.exec(readFileSync(logFile, "utf8"))?.[1];
  }
  return {
    child,
    url,
    async stop() {
      child.kill("SIGTERM");
      await exit;
    },
  };
}

/** 50 clients, each calling in a loop for ROUND_MS; calls per second over all, latency percentiles, the server's CPU per call. */
async function measureLoad(server: RunningServer): Promise<Load> {
  const { url } = server;
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    }),
  );
  const latencies: number[] = [];
  const cpuBefore = cpuMs(server.child.pid);
  const start = performance.now();
  const end = start + ROUND_MS;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < end) {
        const began = performance.now();
        await client.callTool({ name: "get_time", arguments: {} });
        latencies.push(performance.now() - began);
      }
    }),
  );
  const elapsed = performance.now() - start;
  const cpu = cpuMs(server.child.pid) - cpuBefore;
  await Promise.all(clients.map(async (client) => {
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await client.close();
  }));
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { callsPerSecond: (latencies.length * 1000) / elapsed, p50: at(0.5), p99: at(0.99), cpuPerCall: cpu / latencies.length };
}

/** User plus system CPU time of a process so far, in ms (Linux: /proc; NaN elsewhere). Counts less at a loaded machine's mercy than calls/s. */
function cpuMs(pid: number | undefined): number {
  try {
    // The fields after the command name (which may hold spaces, so it is skipped by its closing paren); utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** The growth of the server's resident size per session that only initialized, in bytes (Linux: /proc). */
async function idleSessionBytes(server: RunningServer): Promise<number | undefined> {
  const rss = (): number | undefined => {
    try {
      const kb = /VmRSS:\s+([0-9]+) kB/.exec(readFileSync(`/proc/${server.child.pid}/status`, "utf8"))?.[1];
      return kb === undefined ? undefined : Number(kb) * 1024;
    } catch {
      return undefined;
    }
  };
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = rss();
  if (before === undefined) return undefined;
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  for (let opened = 0; opened < IDLE_SESSIONS; opened += 20) {
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        const init = await fetch(server.url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "idle", version: "1" } } }) });
        await init.text();
        const session = init.headers.get("mcp-session-id") ?? "";
        const initialized = await fetch(server.url, { method: "POST", headers: { ...headers, "mcp-session-id": session }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
        await initialized.text();
      }),
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = rss();
  return after === undefined ? undefined : Math.max(0, after - before) / IDLE_SESSIONS;
}
