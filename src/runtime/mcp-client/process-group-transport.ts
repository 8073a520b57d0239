/**
 * The stdio transport for a server sigloop starts: the SDK's framing (`ReadBuffer`, `serializeMessage`)
 * and default environment, over a child that leads a process group of its own (`spawn-group-leader.ts`;
 * the SDK's `StdioClientTransport` spawns into ours, which it cannot end as a whole). So a terminal's
 * Ctrl-C reaches the agent alone, which cancels its calls before it closes the servers, and closing ends
 * every process the server started (an `npx` launcher's child included). Close: stdin ends; the group
 * gets SIGTERM (and SIGCONT, for a process stopped by the terminal) after `CLOSE_STEP_MS` (at once when
 * the leader has already exited), SIGKILL `CLOSE_STEP_MS` later if any process of it is left. A group
 * still alive when this process exits, whatever the path, is killed then (synchronously, in the `exit`
 * handler). The server's stderr arrives one line at a time.
 */
import type { ChildProcess } from "node:child_process";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { createLineSplitter } from "./line-splitter.js";
import { spawnGroupLeader } from "./spawn-group-leader.js";

export interface ProcessGroupServer {
  command: string;
  args: readonly string[];
  /** Added to the SDK's default environment (on POSIX HOME, LOGNAME, PATH, SHELL, TERM, USER). */
  env: Readonly<Record<string, string>>;
  cwd?: string;
  /** Each line the server writes to its stderr, without the line break. */
  onStderrLine(line: string): void;
}

/** Each of the two waits of a close: for the server to leave on its own, then for SIGTERM. */
const CLOSE_STEP_MS = 500;
/** After the leader exits, how long a process of its group may still hold its stdout before we stop waiting. */
const EXIT_DRAIN_MS = 100;
const POSIX = process.platform !== "win32";

const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(POSIX ? -pid : pid, signal);
    return true;
  } catch {
    return false;
  }
}

function groupAlive(pid: number): boolean {
  return killGroup(pid, 0 as unknown as NodeJS.Signals);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const pid of liveGroups) killGroup(pid, "SIGKILL");
  });
}

export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #server: ProcessGroupServer;
  readonly #buffer = new ReadBuffer();
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(server: ProcessGroupServer) {
    this.#server = server;
  }

  /** The group's id (its leader's pid), once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    installExitHook();
    const server = this.#server;
    return new Promise((resolve, reject) => {
      const { child, started } = spawnGroupLeader(server.command, server.args, {
        env: { ...getDefaultEnvironment(), ...server.env },
        ...(server.cwd !== undefined ? { cwd: server.cwd } : {}),
      });
      this.#child = child;
      this.#exited = new Promise((done) => child.once("exit", () => done()));
      started.then(
        () => {
          if (child.pid !== undefined) liveGroups.add(child.pid);
          resolve();
        },
        (error: Error) => {
          reject(error);
          this.onerror?.(error);
          this.#finish();
        },
      );
      child.stdout?.on("data", (chunk: Buffer) => {
        this.#buffer.append(chunk);
        this.#readMessages();
      });
      const stderrLines = createLineSplitter(server.onStderrLine);
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (text: string) => stderrLines.push(text));
      child.stderr?.on("end", () => stderrLines.end());
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on("error", (error) => this.onerror?.(error));
      child.once("close", () => this.#finish());
      child.once("exit", () => {
        // An empty group's id may be given to another process later: it must not be killed on our way out.
        if (child.pid !== undefined && !groupAlive(child.pid)) liveGroups.delete(child.pid);
        // A process the server started may still hold the pipes open; the server itself is gone.
        setTimeout(() => this.#finish(), EXIT_DRAIN_MS).unref();
      });
    });
  }

  #readMessages(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#buffer.clear();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (this.#closed || stdin == null || stdin.destroyed) return reject(new Error("Not connected"));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.pid === undefined) return this.#finish();
    const pid = child.pid;
    child.stdin?.end();
    const leaderGone = await settlesWithin(this.#exited, CLOSE_STEP_MS);
    if (!leaderGone || groupAlive(pid)) {
      // Before its launcher has made the group, the leader is reached by its pid alone.
      if (!killGroup(pid, "SIGTERM")) child.kill("SIGTERM");
      killGroup(pid, "SIGCONT");
      await until(() => !groupAlive(pid), CLOSE_STEP_MS);
      if (groupAlive(pid)) killGroup(pid, "SIGKILL");
      else if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    liveGroups.delete(pid);
    this.#finish();
  }
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}
