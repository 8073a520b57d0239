/**
 * `npm run bench -- mcp-http`: `sigloop mcp --http` under 50 concurrent clients calling a trivial tool,
 * against a floor: a minimal server written with the same SDK (node:http, StreamableHTTPServerTransport,
 * one session per client, one hand-written tool). Both run as a user runs a server: `node FILE`, plain
 * JavaScript, in the project where sigloop's packed tarball is installed (the floor's SDK is the one
 * that install resolved, sigloop's compiled bin its own command), stderr to a file as a service's log.
 * They take turns, the first of each round alternating; every round starts a fresh process, so each
 * first gets a warm-up under the same load (its first calls import the tool and compile validators,
 * once per process) before anything is counted. Latency percentiles are over every counted call of every
 * round, so p99 rests on thousands of calls. The server's CPU time per call is reported beside calls/s:
 * on a shared machine it depends far less on what else runs. Then the memory each idle session holds:
 * the server's resident size before and after opening sessions that only initialize.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { binPath, installedProject } from "./installed-project.js";
import { median, printTable } from "./table.js";

const CLIENTS = 50;
const ROUNDS = 6;
const WARM_UP_MS = 1500;
const ROUND_MS = 3000;
const IDLE_SESSIONS = 500;

/** Plain JavaScript, as a hand-written server would be: no loader between it and Node. */
const FLOOR = `import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const sessions = new Map();
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

/** One round of one server: what the counted calls took, and the server process's CPU time meanwhile. */
interface Round {
  /** Of every call begun in the counted window. */
  latencies: number[];
  /** Calls that ended in the counted window. */
  finished: number;
  /** User plus system CPU time of the server process during the counted window, in ms; NaN where /proc is missing. */
  cpuMs: number;
}

interface Variant {
  name: string;
  /** The file `node` runs, then its arguments. */
  argv: string[];
}

export async function run(): Promise<void> {
  const project = await installedProject();
  const logs = mkdtempSync(path.join(tmpdir(), "sigloop-mcp-http-bench-"));
  try {
    const floorFile = path.join(project, "mcp-http-floor.mjs");
    writeFileSync(floorFile, FLOOR);
    const variants: Variant[] = [
      { name: "floor: the SDK's Streamable HTTP transport on node:http, one hand-written tool", argv: [floorFile] },
      { name: "sigloop mcp --http (installed bin), its built-in tools", argv: [realpathSync(binPath(project)), "mcp", "--workspace", project, "--http", "0", "--max-sessions", "1000"] },
    ];
    const rounds = new Map<string, Round[]>(variants.map(({ name }) => [name, []]));
    const memory = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
        process.stderr.write(`mcp-http-bench: ${variant.name}, round ${round + 1} of ${ROUNDS}\n`);
        const server = await startServer(variant.argv, project, logs);
        try {
          rounds.get(variant.name)!.push(await measureRound(server));
        } finally {
          await server.stop();
        }
      }
    }
    for (const variant of variants) {
      process.stderr.write(`mcp-http-bench: ${variant.name}, idle sessions\n`);
      // A fresh process, so the heap a load round left behind does not hide the sessions' growth.
      const server = await startServer(variant.argv, project, logs);
      try {
        const bytes = await idleSessionBytes(server);
        if (bytes !== undefined) memory.set(variant.name, bytes);
      } finally {
        await server.stop();
      }
    }
    const floor = summary(rounds.get(variants[0]!.name)!);
    printTable(
      `MCP over HTTP: ${CLIENTS} concurrent clients calling get_time (${ROUNDS} rounds of ${ROUND_MS / 1000} s, each after ${WARM_UP_MS / 1000} s of warm-up; calls/s the median round, percentiles over all calls; goals ≥ 0.9x calls/s, ≤ 1.2x p99)`,
      ["server", "calls/s", "vs floor (goal ≥ 0.9x)", "p50", "p99", "p99 vs floor (goal ≤ 1.2x)", "calls counted", "server CPU per call", "vs floor", `memory per idle session (${IDLE_SESSIONS} opened)`],
      variants.map(({ name }) => {
        const own = summary(rounds.get(name)!);
        const bytes = memory.get(name);
        return [
          name,
          own.callsPerSecond.toFixed(0),
          `${(own.callsPerSecond / floor.callsPerSecond).toFixed(2)}x`,
          `${own.p50.toFixed(1)} ms`,
          `${own.p99.toFixed(1)} ms`,
          `${(own.p99 / floor.p99).toFixed(2)}x`,
          String(own.calls),
          `${own.cpuPerCall.toFixed(2)} ms`,
          `${(own.cpuPerCall / floor.cpuPerCall).toFixed(2)}x`,
          bytes === undefined ? "n/a" : `${(bytes / 1024).toFixed(1)} KiB`,
        ];
      }),
    );
    process.stdout.write(`Node ${process.version}; each server a process started as node FILE in the installed project; clients: the SDK's Client over StreamableHTTPClientTransport in the bench process.\n\n`);
  } finally {
    rmSync(logs, { recursive: true, force: true });
  }
}

function summary(rounds: readonly Round[]): { callsPerSecond: number; p50: number; p99: number; cpuPerCall: number; calls: number } {
  const all = rounds.flatMap((round) => round.latencies).sort((a, b) => a - b);
  const at = (q: number): number => all[Math.min(all.length - 1, Math.floor(q * all.length))]!;
  const cpu = rounds.reduce((sum, round) => sum + round.cpuMs, 0);
  const finished = rounds.reduce((sum, round) => sum + round.finished, 0);
  return {
    callsPerSecond: median(rounds.map((round) => (round.finished * 1000) / ROUND_MS)),
    p50: at(0.5),
    p99: at(0.99),
    cpuPerCall: cpu / finished,
    calls: all.length,
  };
}

interface RunningServer {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

let started = 0;

async function startServer(argv: readonly string[], cwd: string, logs: string): Promise<RunningServer> {
  // stderr goes to a file, as a service's log does: a pipe this busy process reads late would block the
  // server's synchronous log writes and time the bench instead of the server.
  const logFile = path.join(logs, `server-${(started += 1)}.log`);
  const log = openSync(logFile, "w");
  const child = spawn(process.execPath, argv, { cwd, stdio: ["ignore", "ignore", log] });
  closeSync(log);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on("close", () => resolve()));
  void exit.then(() => (exited = true));
  let url: string | undefined;
  while (url === undefined) {
    if (exited) throw new Error(`${path.basename(argv[0]!)} exited before listening: ${readFileSync(logFile, "utf8").slice(0, 500)}`);
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

/** 50 clients, each calling in a loop: WARM_UP_MS uncounted, then ROUND_MS counted (latency of each call, the server's CPU time). */
async function measureRound(server: RunningServer): Promise<Round> {
  const { url } = server;
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    }),
  );
  const latencies: number[] = [];
  let finished = 0;
  const begun = performance.now();
  const countFrom = begun + WARM_UP_MS;
  const end = countFrom + ROUND_MS;
  const cpuAt = (ms: number): Promise<number> => new Promise((resolve) => setTimeout(() => resolve(cpuMs(server.child.pid)), ms));
  const cpuBefore = cpuAt(countFrom - begun);
  const cpuAfter = cpuAt(end - begun);
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < end) {
        const began = performance.now();
        await client.callTool({ name: "get_time", arguments: {} });
        const ended = performance.now();
        // Every call begun in the window has its latency counted, the slow last ones too; calls/s and CPU
        // per call count those that ended in it.
        if (began >= countFrom) latencies.push(ended - began);
        if (ended >= countFrom && ended <= end) finished += 1;
      }
    }),
  );
  await Promise.all(
    clients.map(async (client) => {
      await (client.transport as StreamableHTTPClientTransport).terminateSession();
      await client.close();
    }),
  );
  return { latencies, finished, cpuMs: (await cpuAfter) - (await cpuBefore) };
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
