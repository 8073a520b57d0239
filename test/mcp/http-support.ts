/**
 * Shared by the HTTP tests: `scripts/mcp.ts --http` as a real child process, its address read from its
 * `listening on URL` line, and the SDK's own Client over StreamableHTTPClientTransport to talk to it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { writeFixtureSchemas } from "../cli/support.js";
import { projectRoot, tempDir, until } from "./support.js";

const entry = path.join(projectRoot, "scripts/mcp.ts");
export const httpFixtureTools = path.join(projectRoot, "test/mcp/fixtures/http-tools");

/** The schemas of the HTTP fixture tools (add, pause, wait_for_abort), written once into a temp folder. */
export function httpFixtureSchemas(): string {
  return writeFixtureSchemas(tempDir(), httpFixtureTools);
}

export interface HttpServerRun {
  child: ChildProcess;
  /** `http://HOST:PORT/mcp` as the server printed it. */
  url: string;
  stderr(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the server (stdin at /dev/null, as services run it) and resolves once it listens, or rejects with its stderr when it exits first. */
export async function startHttpServer(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<HttpServerRun> {
  const child = spawn(process.execPath, ["--import", "tsx", entry, ...args], { cwd: projectRoot, env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stderr += `[stdout] ${chunk}`));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  let exited = false;
  void exit.then(() => (exited = true));
  await until(() => exited || /listening on \S+\n/.test(stderr));
  const url = /listening on (\S+)\n/.exec(stderr)?.[1];
  if (url === undefined) throw new Error(`the server exited before listening:\n${stderr}`);
  return {
    child,
    url,
    stderr: () => stderr,
    exit,
    stop() {
      if (!exited) child.kill("SIGTERM");
      return exit;
    },
  };
}

/** Runs the server expecting it to refuse to start; resolves with its exit code and stderr. */
export async function refusedStart(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", entry, ...args], { cwd: projectRoot, env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stderr };
}

/** An SDK client connected to `url`, with `headers` on every request. */
export async function connectClient(url: string, headers: Record<string, string> = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "sigloop-http-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** A raw POST of `body` to the endpoint, with the headers a Streamable HTTP client sends unless overridden. */
export async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: unknown; text: string }> {
  const response = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

export const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });

/** The request log lines the server wrote so far. */
export function logLines(run: HttpServerRun): string[] {
  return run.stderr().split("\n").filter((line) => line.startsWith("http: "));
}
