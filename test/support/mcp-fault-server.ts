/** The project's MCP fault servers (test/fixtures/mcp-servers/fault-server.mjs, the raw test/support/hostile-mcp-server.mjs) and what they record. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const FAULT_SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/mcp-servers/fault-server.mjs");

/** An `mcpServers` entry starting the fault server in `mode`, recording to `record`. */
export function faultServer(mode: string, record: string, env: Record<string, string> = {}): { command: string; args: string[]; env: Record<string, string> } {
  return { command: process.execPath, args: [FAULT_SERVER, mode], env: { RECORD_FILE: record, ...env } };
}

/** Every line the server appended to its record file: calls (`call`, `arguments`, `pid`), `cancelled`, `child`. */
export function recorded(file: string): Array<Record<string, unknown>> {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, unknown>);
}

export const HOSTILE_SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "hostile-mcp-server.mjs");

/**
 * An `mcpServers` entry starting the raw hostile server (test/support/hostile-mcp-server.mjs) with `script`:
 * what it lists, answers and writes, protocol breaks included.
 */
export function hostileServer(script: Record<string, unknown>, record?: string): { command: string; args: string[]; env: Record<string, string> } {
  return { command: process.execPath, args: [HOSTILE_SERVER], env: { HOSTILE_SCRIPT: JSON.stringify(script), ...(record !== undefined ? { RECORD_FILE: record } : {}) } };
}
