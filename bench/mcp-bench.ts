/**
 * `npm run bench -- mcp`: start-up of `npm run mcp` to its answer of `tools/list`, against a floor: a
 * minimal server written with the same SDK (low-level Server, stdio transport) serving one hand-written
 * tool. Both are started the same way (tsx), alternately, in the same run; the first round is a warm-up.
 */
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median, printTable } from "./table.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsxCli = path.join(root, "node_modules", "tsx", "dist", "cli.mjs");
const ROUNDS = 11;

const FLOOR = `import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "floor", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: "get_time", description: "The current time.", inputSchema: { type: "object", properties: {}, required: [] } }],
}));
server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: "text", text: new Date().toISOString() }] }));
await server.connect(new StdioServerTransport());
`;

export async function run(): Promise<void> {
  // Inside the project (git-ignored tmp/), so the floor resolves the SDK from the project's node_modules.
  const work = path.join(root, "tmp", `mcp-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  try {
    const floorFile = path.join(work, "floor.ts");
    writeFileSync(floorFile, FLOOR);
    const variants: [string, string, string[]][] = [
      ["floor: tsx, the SDK's low-level server, one hand-written tool", floorFile, []],
      ["sigloop mcp, default tools", path.join(root, "scripts", "mcp.ts"), ["--workspace", work]],
    ];
    const times = new Map<string, number[]>(variants.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, file, args] of variants) {
        process.stderr.write(`mcp-bench: ${name}, round ${round + 1}\n`);
        const ms = await timeToToolList(file, args, work);
        if (round > 0) times.get(name)!.push(ms);
      }
    }
    const floor = median(times.get(variants[0]![0])!);
    printTable(
      `MCP: start-up to the answer of tools/list (median of ${ROUNDS - 1} after a warm-up; target ≤ 1.2x)`,
      ["server", "to tools/list", "vs floor"],
      variants.map(([name]) => {
        const ms = median(times.get(name)!);
        return [name, `${(ms / 1000).toFixed(3)} s`, `${(ms / floor).toFixed(2)}x`];
      }),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Milliseconds from spawning `tsx file args` to the `tools/list` response, after the initialize handshake. */
async function timeToToolList(file: string, args: readonly string[], cwd: string): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, [tsxCli, file, ...args], { cwd, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  let buffered = "";
  const listed = new Promise<number>((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf("\n")) !== -1) {
        const message = JSON.parse(buffered.slice(0, newline)) as { id?: unknown };
        buffered = buffered.slice(newline + 1);
        if (message.id === 1) {
          send({ method: "notifications/initialized" });
          send({ id: 2, method: "tools/list" });
        } else if (message.id === 2) {
          resolve(performance.now() - start);
        }
      }
    });
  });
  send({ id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } });
  const ms = await Promise.race([listed, exited.then(() => undefined)]);
  child.stdin.end();
  await exited;
  if (ms === undefined) throw new Error(`${path.basename(file)} exited before answering tools/list: ${stderr.slice(0, 500)}`);
  return ms;
}
