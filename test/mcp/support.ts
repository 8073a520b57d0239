/**
 * Shared by the MCP tests: the server as a real child process (`node --import tsx scripts/mcp.ts`),
 * driven either by the SDK's own Client over StdioClientTransport, or raw, one JSON line at a time.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { runMcpCli } from "../../src/mcp/run-mcp-cli.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { projectRoot, writeFixtureSchemas } from "../cli/support.js";

export { projectRoot };
export const mcpFixtureTools = path.join(projectRoot, "test/mcp/fixtures/tools");
const entry = path.join(projectRoot, "scripts/mcp.ts");

export function tempDir(prefix = "sigloop-mcp-"): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** A temp folder with a copy of the fixture tools that import nothing (`tools/`) and their schemas (`schemas.json`). */
export function fixtureCopy(): { dir: string; toolsDir: string; schemas: string } {
  const dir = tempDir();
  const toolsDir = path.join(dir, "tools");
  mkdirSync(toolsDir);
  for (const file of ["arithmetic.ts", "weather.ts"]) cpSync(path.join(mcpFixtureTools, file), path.join(toolsDir, file));
  return { dir, toolsDir, schemas: writeFixtureSchemas(dir, toolsDir) };
}

/** The fixture tools' schemas, written once into a temp folder. */
export function fixtureSchemas(): string {
  return writeFixtureSchemas(tempDir(), mcpFixtureTools);
}

export interface McpClientRun {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export async function startClient(args: readonly string[]): Promise<McpClientRun> {
  const transport = new StdioClientTransport({ command: process.execPath, args: ["--import", "tsx", entry, ...args], cwd: projectRoot, stderr: "pipe" });
  let stderr = "";
  const stream = transport.stderr as NodeJS.ReadableStream | null;
  stream?.setEncoding("utf8");
  stream?.on("data", (chunk: string) => (stderr += chunk));
  const client = new Client({ name: "sigloop-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export interface RawRun {
  child: ChildProcessWithoutNullStreams;
  /** Every line the server wrote to stdout, parsed (a line that is not JSON fails the test that reads it). */
  messages: unknown[];
  stderr(): string;
  writeLine(text: string): void;
  /** Sends a request and resolves with the response carrying its id. */
  request(id: number | string, method: string, params?: object): Promise<Record<string, unknown>>;
  /** Resolves with the next message matching `test`, already received or still to come. */
  next(test: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Everything the server wrote to stdout so far, as written. */
  stdout(): string;
  /** Writes `text` as it is (its line end included) and resolves with the next line the server writes, as written. */
  answerRaw(text: string): Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnRaw(args: readonly string[], cwd = projectRoot): RawRun {
  const child = spawn(process.execPath, ["--import", "tsx", entry, ...args], { cwd, env: { PATH: process.env.PATH }, stdio: "pipe" });
  const messages: unknown[] = [];
  const waiters: { test: (message: Record<string, unknown>) => boolean; resolve: (message: Record<string, unknown>) => void }[] = [];
  let stdoutText = "";
  let written = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdoutText += chunk;
    written += chunk;
    let newline: number;
    while ((newline = stdoutText.indexOf("\n")) !== -1) {
      const message = JSON.parse(stdoutText.slice(0, newline)) as Record<string, unknown>;
      stdoutText = stdoutText.slice(newline + 1);
      messages.push(message);
      for (const waiter of waiters.filter((entry) => entry.test(message))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  const next = (test: (message: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const seen = (messages as Record<string, unknown>[]).find(test);
      if (seen !== undefined) resolve(seen);
      else waiters.push({ test, resolve });
    });
  const writeLine = (text: string) => void child.stdin.write(`${text}\n`);
  return {
    child,
    messages,
    stderr: () => stderr,
    writeLine,
    next,
    request(id, method, params) {
      writeLine(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }));
      return next((message) => message.id === id && ("result" in message || "error" in message));
    },
    stdout: () => written,
    async answerRaw(text) {
      const before = written.length;
      child.stdin.write(text);
      await until(() => written.indexOf("\n", before) !== -1);
      return written.slice(before, written.indexOf("\n", before));
    },
    exit,
  };
}

/** The initialize handshake of a raw client. */
export async function initializeRaw(run: RawRun): Promise<void> {
  await run.request("init", "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } });
  run.writeLine(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
}

/** A raw client of the server over the fixture tools in a fresh workspace, initialized. */
export async function startRawFixtureServer(): Promise<RawRun> {
  const run = spawnRaw(["--schemas", fixtureSchemas(), "--workspace", tempDir()]);
  await initializeRaw(run);
  return run;
}

/** Closes a raw client's stdin and waits for the server to exit. */
export async function endRaw(run: RawRun): Promise<void> {
  run.child.stdin.end();
  await run.exit;
}

/** The text blocks of a tools/call result, joined. */
export function resultText(result: object): string {
  return ((result as { content: { text: string }[] }).content).map((block) => block.text).join("\n");
}

/** Waits (polling) until `condition` holds; the test's own timeout bounds it. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** `npm run mcp` in-process with stdin closed, from the project root: its exit code and what it wrote. */
export async function runMcp(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const out = new PassThrough();
  out.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const stdin = new PassThrough();
  stdin.end();
  const code = await runMcpCli({
    argv,
    cwd: projectRoot,
    projectRoot,
    stdin,
    stdout: out,
    stderr: { write: (text: string) => (stderr += text) },
    onStopSignal: () => () => undefined,
  });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout, stderr };
}
