/**
 * Shared by the CLI tests: fixture tools with a schemas file for them, the sentinel key, and a way to run
 * the CLI in-process (fast) or as a real process (exit codes, signals).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, expect } from "vitest";
import { runAgentCli } from "../../src/cli/run-agent-cli.js";
import { ToolGenerator } from "../../src/gen/tool-generator.js";
import { loadSchemas } from "../../src/runtime/execution/load-schemas.js";
import { createToolExecutor } from "../../src/runtime/execution/tool-executor.js";
import type { ToolExecutor } from "../../src/runtime/loop/types.js";
import type { ChatMessage } from "../../src/runtime/loop/messages.js";
import { SENTINEL_API_KEY } from "../support/sentinel-key.js";
import { npmScriptArgs } from "../../bench/npm-script.js";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const fixtureToolsDir = path.join(projectRoot, "test/cli/fixtures/tools");

/** Must never appear in any output or transcript. */
export const SENTINEL_KEY = SENTINEL_API_KEY;

export function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), "sigloop-cli-"));
}

/** Writes the schemas of a tools folder (default: the fixture tools) into `dir` with the real generator. */
export function writeFixtureSchemas(dir: string, toolsDir = fixtureToolsDir): string {
  const file = path.join(dir, "schemas.json");
  writeFileSync(file, generatedSchemasText(toolsDir, file));
  return file;
}

/** What the real generator writes for a tools folder into `file` (its bindings are relative to `file`). */
export function generatedSchemasText(toolsDir: string, file: string): string {
  const generator = ToolGenerator.open(toolsDir, file);
  if (!(generator instanceof ToolGenerator)) throw new Error(`gen: ${generator.message}`);
  const generation = generator.generateAll();
  if (generation.text === undefined) throw new Error(`gen: ${generation.diagnostics.map((d) => d.message).join("; ")}`);
  return generation.text;
}

/** The real executor over the fixture tools (5 s per call). */
export function fixtureExecutor(): ToolExecutor {
  const file = writeFixtureSchemas(tempDir());
  const loaded = loadSchemas(file);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return createToolExecutor({ schemas: loaded.schemas, schemasDir: path.dirname(file), timeoutMs: 5_000 });
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in this process, stdin closed and not a terminal. */
export async function runCliInProcess(argv: string[], env: NodeJS.ProcessEnv, cwd = projectRoot): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const stdin = new PassThrough();
  stdin.end();
  const code = await runAgentCli({
    argv,
    env,
    cwd,
    projectRoot,
    stdin,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    onInterrupt: () => () => undefined,
  });
  return { code, stdout, stderr };
}

/** Starts the real CLI (`tsx scripts/agent.ts`) with stdin closed. */
/** The process `npm run agent` starts (npm's own start-up left out), with `argv` after the script's own words. */
/** `asTerminalJob`: the agent leads a process group of its own, as a shell runs a command, so that a terminal's Ctrl-C can be sent to that group. */
export function spawnCli(argv: string[], env: NodeJS.ProcessEnv, cwd = projectRoot, { asTerminalJob = false } = {}): ChildProcess & { done: Promise<CliRun> } {
  const child = spawn(process.execPath, [...npmScriptArgs(projectRoot, "agent"), ...argv], {
    cwd,
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: asTerminalJob,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const done = new Promise<CliRun>((resolve) => {
    child.on("close", (code, signal) => resolve({ code: code ?? (signal === "SIGKILL" ? 137 : -1), stdout, stderr }));
  });
  return Object.assign(child, { done });
}

export function readTranscriptLines(file: string): ChatMessage[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as ChatMessage);
}

export function cliEnv(baseURL: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { OPENAI_API_KEY: SENTINEL_KEY, OPENAI_BASE_URL: baseURL, AGENT_MODEL: "scripted-model", NO_COLOR: "1", ...extra };
}

export interface CliFixture {
  server: ScriptedServer;
  /** A temporary directory holding the fixture tools' schemas file. */
  dir: string;
  schemas: string;
  /** Every stdout and stderr a test saw; after the file, the key must be in none of them. */
  outputs: string[];
}

/** Per test file: one scripted server and a schemas file, and, at the end, the check that the key never leaked. */
export function useCliFixture(): CliFixture {
  const fixture = { outputs: [] } as unknown as CliFixture;
  beforeAll(async () => {
    fixture.server = await startScriptedServer({ script: [] });
    fixture.dir = tempDir();
    fixture.schemas = writeFixtureSchemas(fixture.dir);
  });
  afterAll(async () => {
    await fixture.server.close();
    expect(fixture.outputs.join("\n")).not.toContain(SENTINEL_KEY);
    expect(fixture.outputs.join("\n")).not.toContain(SENTINEL_KEY.slice(-8));
  });
  return fixture;
}
