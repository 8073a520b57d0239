/**
 * The library's way to use MCP servers: start every server of an `mcpServers` config in parallel, each
 * within `startTimeoutMs`, and get one executor offering their tools beside the local executor's, every
 * call validated as a local tool's is. A server that fails to start is left out (reported in `failures`
 * and by one notice); a name clash is an error, and then every server already started is closed again.
 * `close()` ends every server (stdio: stdin closed, then SIGTERM, then SIGKILL to its process group,
 * within about a second). Never throws.
 */
import { escapeControls } from "../../cli/terminal-safe.js";
import { packageVersion } from "../../shared/package-layout.js";
import type { ToolExecutor } from "../loop/types.js";
import type { McpConfig } from "./mcp-config.js";
import { createMcpToolSet } from "./mcp-tool-set.js";
import { createServerConnection, type ServerConnection } from "./server-connection.js";

export const DEFAULT_MCP_TIMEOUT_MS = 30_000;

export interface ConnectMcpServersOptions {
  /** From `readMcpConfig(file, process.env)`. */
  config: McpConfig;
  /** The local tools (`createToolExecutor`), offered first. */
  local: ToolExecutor;
  /** Offer the strict form of each server tool that has one (as `createToolExecutor({ strict })`). Default false. */
  strict?: boolean;
  /** Offer no server tool that needs approval (as `createToolExecutor({ readOnly })`). Default false. */
  readOnly?: boolean;
  /** Where a stdio server without its own `cwd` starts: the folder the user ran the command from. Default `process.cwd()`. */
  cwd?: string;
  /** Each server's start: spawn (or connect), initialize and tools/list. Default 30,000 ms. */
  startTimeoutMs?: number;
  /** Each call, a restart of its server included. Default 60,000 ms. */
  callTimeoutMs?: number;
  /** Each line a stdio server writes to stderr. Default: to our stderr as `[<server>] line`, control characters escaped. */
  onServerStderr?(server: string, line: string): void;
  /** Our own lines (a server left out, a tool kept lenient, a changed list). Default: to stderr. */
  onNotice?(line: string): void;
}

export interface McpServers {
  /** The local tools and the servers' tools, one executor for `createAgent`. */
  executor: ToolExecutor;
  /** Servers that did not start, and why. */
  failures: { server: string; why: string }[];
  close(): Promise<void>;
}

export type ConnectMcpServersResult = { ok: true; servers: McpServers } | { ok: false; error: string };

export async function connectMcpServers(options: ConnectMcpServersOptions): Promise<ConnectMcpServersResult> {
  const onNotice = options.onNotice ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const onServerStderr = options.onServerStderr ?? ((server: string, line: string) => void process.stderr.write(`${escapeControls(`[${server}] ${line}`)}\n`));
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
  const set = createMcpToolSet({
    local: options.local,
    strict: options.strict ?? false,
    readOnly: options.readOnly === true,
    ...(options.callTimeoutMs !== undefined ? { timeoutMs: options.callTimeoutMs } : {}),
    onNotice,
  });
  const { cwd } = options;
  const connections: ServerConnection[] = options.config.servers.map((config) => {
    const connection: ServerConnection = createServerConnection({
      config: config.type === "stdio" && config.cwd === undefined && cwd !== undefined ? { ...config, cwd } : config,
      clientVersion: packageVersion(),
      onStderrLine: (line) => onServerStderr(config.name, line),
      onWarning: onNotice,
      onToolsChanged: (tools) => set.replace(connection, tools),
    });
    return connection;
  });
  const close = async (): Promise<void> => {
    await Promise.all(connections.map((connection) => connection.close()));
  };
  const started = await Promise.all(connections.map((connection) => connection.start(startTimeoutMs)));
  const failures: { server: string; why: string }[] = [];
  for (const [index, result] of started.entries()) {
    const connection = connections[index]!;
    if (!result.ok) {
      failures.push({ server: connection.name, why: result.why });
      set.leftOut(connection.name, result.why);
      onNotice(`mcp: server ${JSON.stringify(connection.name)} is left out: ${result.why}`);
      continue;
    }
    const added = set.add(connection, result.tools);
    if (!added.ok) {
      await close();
      return { ok: false, error: added.error };
    }
  }
  return { ok: true, servers: { executor: set, failures, close } };
}
