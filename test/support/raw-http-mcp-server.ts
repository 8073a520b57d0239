/**
 * A bare Streamable HTTP MCP server on 127.0.0.1 (raw node:http, no SDK), for tests of what the agent's
 * MCP client does with what such a server sends: it answers `initialize` and `tools/list` as JSON, a
 * notification with 202, and hands each `tools/call` to the test, which writes the whole response itself
 * (JSON or an event stream, of any size). `connectAgent` connects the agent's client (the library API) to
 * it as the server `h`, so its tools are `h__<name>`. Every request it gets is kept in `received`, so a
 * test can tell what the client sent (a `notifications/cancelled`, a GET resuming a stream).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { connectMcpServers, type McpServers } from "../../src/runtime/mcp-client/connect-mcp-servers.js";
import { parseMcpConfig } from "../../src/runtime/mcp-client/mcp-config.js";
import type { ToolExecutor, ToolOutcome } from "../../src/runtime/loop/types.js";

export interface RawHttpMcpServerOptions {
  /** The names of the tools listed, each taking no arguments. */
  tools: readonly string[];
  /** Capabilities beyond `tools` (`{ logging: {} }`). */
  capabilities?: Record<string, unknown>;
  /** Writes the response to a `tools/call` of `name` with JSON-RPC id `id`. */
  onCall(response: ServerResponse, id: unknown, name: string): void | Promise<void>;
}

/** One request the server got: its HTTP method, its `last-event-id` header, and the JSON-RPC message a POST carried. */
export interface ReceivedRequest {
  httpMethod: string;
  lastEventId?: string;
  message?: { id?: unknown; method: string; params?: Record<string, unknown> };
}

export interface RawHttpMcpServer {
  /** The agent's client connected to it (`connectMcpServers`), its one server named `h`; `callTimeoutMs` 20000 unless given. */
  connectAgent(options?: { callTimeoutMs?: number }): Promise<McpServers>;
  /** Every request so far, in the order they came. */
  readonly received: readonly ReceivedRequest[];
  close(): Promise<void>;
}

const noLocalTools: ToolExecutor = { definitions: [], execute: () => Promise.resolve({ status: "unknown_tool", content: "none" }) };

export async function startRawHttpMcpServer(options: RawHttpMcpServerOptions): Promise<RawHttpMcpServer> {
  const received: ReceivedRequest[] = [];
  const server = createServer((request, response) => void answer(options, request, response, received));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const connected: McpServers[] = [];
  return {
    received,
    async connectAgent({ callTimeoutMs = 20_000 } = {}) {
      const parsed = parseMcpConfig("mcp.json", JSON.stringify({ mcpServers: { h: { type: "http", url: `http://127.0.0.1:${port}/mcp` } } }), {});
      if (!parsed.ok) throw new Error(parsed.error);
      const made = await connectMcpServers({ config: parsed.config, local: noLocalTools, callTimeoutMs, onNotice: () => undefined });
      if (!made.ok) throw new Error(made.error);
      if (made.servers.failures.length > 0) throw new Error(`the raw server was left out: ${JSON.stringify(made.servers.failures)}`);
      connected.push(made.servers);
      return made.servers;
    },
    async close() {
      await Promise.all(connected.splice(0).map((servers) => servers.close()));
      // A stream a test left endless (or a client that kept one open) must not hold the close.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** One call of `name` (no arguments) through the connected client's executor, as the agent makes it, under the run's `signal` (never aborted unless given). */
export function callTool(servers: McpServers, name: string, signal: AbortSignal = new AbortController().signal): Promise<ToolOutcome> {
  return servers.executor.execute({ id: "c", type: "function", function: { name, arguments: "{}" } }, { workspace: process.cwd(), signal });
}

async function answer(options: RawHttpMcpServerOptions, request: IncomingMessage, response: ServerResponse, received: ReceivedRequest[]): Promise<void> {
  const lastEventId = request.headers["last-event-id"];
  const seen: ReceivedRequest = { httpMethod: request.method ?? "", ...(typeof lastEventId === "string" ? { lastEventId } : {}) };
  received.push(seen);
  if (request.method !== "POST") return void response.writeHead(405).end();
  let text = "";
  for await (const chunk of request) text += String(chunk);
  const message = JSON.parse(text) as NonNullable<ReceivedRequest["message"]>;
  seen.message = message;
  if (message.id === undefined) return void response.writeHead(202).end();
  const json = (result: unknown): void => void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
  if (message.method === "initialize") {
    return json({ protocolVersion: message.params?.protocolVersion, capabilities: { tools: {}, ...options.capabilities }, serverInfo: { name: "raw", version: "1.0.0" } });
  }
  if (message.method === "tools/list") return json({ tools: options.tools.map((name) => ({ name, description: `${name}.`, inputSchema: { type: "object", properties: {} } })) });
  if (message.method === "tools/call") return await options.onCall(response, message.id, String(message.params?.name));
  return json({});
}

/** What `flood` has had a response's socket take, summed over every flood since the last `reset`. */
export const flooded = {
  bytes: 0,
  reset(): void {
    this.bytes = 0;
  },
};

/** Writes `piece` as fast as the client reads, for as long as the response is open (counted in `flooded`). */
export function flood(response: ServerResponse, piece: string): void {
  const pump = (): void => {
    while (!response.destroyed) {
      flooded.bytes += piece.length;
      if (!response.write(piece)) return void response.once("drain", pump);
    }
  };
  pump();
}
