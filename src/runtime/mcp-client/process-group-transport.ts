/**
 * The stdio transport for a server sigloop starts: the SDK's message format (`serializeMessage`,
 * `deserializeMessage`: one JSON message a line) and default environment, over a child that leads a process group of its own (`spawn-group-leader.ts`;
 * the SDK's `StdioClientTransport` spawns into ours, which it cannot end as a whole). So a terminal's
 * Ctrl-C reaches the agent alone, which cancels its calls before it closes the servers, and closing ends
 * every process the server started (an `npx` launcher's child included). Close: stdin ends; the group
 * gets SIGTERM (and SIGCONT, for a process stopped by the terminal) after `CLOSE_STEP_MS` (at once when
 * the leader has already exited), SIGKILL `CLOSE_STEP_MS` later if any process of it is left. A group
 * still alive when this process exits, whatever the path, is killed then (synchronously, in the `exit`
 * handler). The server's stderr arrives one line at a time.
 *
 * A message longer than `MAX_MESSAGE_BYTES` (the SDK's own stdio limit) is skipped as it arrives, never
 * held: an answer to a request (its id found at the line's start or end, where the SDKs write it)
 * becomes an error answer with code `ANSWER_TOO_LARGE`, so that call alone fails and says why. The SDK's
 * `ReadBuffer` threw there, out of the stream's `data` handler, which ended the agent.
 */
import type { ChildProcess } from "node:child_process";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
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
/** The most bytes of one message read from a server: 10 MiB, as the SDK's `ReadBuffer`. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** The error code (JSON-RPC's implementation-defined range) of the answer standing for one too large to read. */
export const ANSWER_TOO_LARGE = -32090;
/** How much of a skipped message's start and end is kept to find its id. */
export const ID_WINDOW = 256;

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
  readonly #lines = new MessageLines(
    (line) => this.#readMessage(line),
    (skipped) => this.#skipped(skipped),
  );
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
      child.stdout?.on("data", (chunk: Buffer) => this.#lines.push(chunk));
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

  #readMessage(line: Buffer): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line.toString("utf8").replace(/\r$/, ""));
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
  }

  #skipped({ start, end, bytes }: SkippedLine): void {
    const id = idAtStart(start) ?? idAtEnd(end);
    const words = `its answer is ${bytes} bytes, more than the ${MAX_MESSAGE_BYTES} sigloop reads of one message`;
    if (id === undefined) return this.onerror?.(new Error(`a message of ${bytes} bytes without an id sigloop could find was skipped: ${words}`));
    this.onmessage?.({ jsonrpc: "2.0", id, error: { code: ANSWER_TOO_LARGE, message: words, data: { bytes, limit: MAX_MESSAGE_BYTES } } });
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#lines.clear();
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

interface SkippedLine {
  /** Its first and last `ID_WINDOW` bytes. */
  start: string;
  end: string;
  bytes: number;
}

/**
 * Bytes from a server cut at each `\n`. The pieces of a line are kept in a list and joined once, so a
 * line costs time linear in its length; one that passes `MAX_MESSAGE_BYTES` is dropped as it arrives,
 * keeping only its ends.
 */
class MessageLines {
  #pieces: Buffer[] = [];
  #size = 0;
  #skipping: { start: Buffer; end: Buffer; bytes: number } | undefined;

  constructor(
    private readonly onLine: (line: Buffer) => void,
    private readonly onSkipped: (line: SkippedLine) => void,
  ) {}

  push(chunk: Buffer): void {
    let from = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, from)) {
      this.#take(chunk.subarray(from, newline));
      this.#endLine();
      from = newline + 1;
    }
    if (from < chunk.length) this.#take(chunk.subarray(from));
  }

  clear(): void {
    this.#pieces = [];
    this.#size = 0;
    this.#skipping = undefined;
  }

  #take(piece: Buffer): void {
    const skipping = this.#skipping;
    if (skipping !== undefined) {
      skipping.bytes += piece.length;
      skipping.end = lastBytes([skipping.end, piece]);
      return;
    }
    this.#pieces.push(piece);
    this.#size += piece.length;
    if (this.#size <= MAX_MESSAGE_BYTES) return;
    const whole = Buffer.concat(this.#pieces);
    this.#skipping = { start: Buffer.from(whole.subarray(0, ID_WINDOW)), end: lastBytes([whole]), bytes: whole.length };
    this.#pieces = [];
    this.#size = 0;
  }

  #endLine(): void {
    const skipping = this.#skipping;
    if (skipping !== undefined) {
      this.#skipping = undefined;
      return this.onSkipped({ start: skipping.start.toString("utf8"), end: skipping.end.toString("utf8"), bytes: skipping.bytes });
    }
    const line = this.#pieces.length === 1 ? this.#pieces[0]! : Buffer.concat(this.#pieces);
    this.#pieces = [];
    this.#size = 0;
    if (line.length > 0) this.onLine(line);
  }
}

/** A copy of the last `ID_WINDOW` bytes of the pieces joined. */
export function lastBytes(pieces: readonly Uint8Array[]): Buffer {
  const joined = Buffer.concat(pieces.map((piece) => (piece.length > ID_WINDOW ? piece.subarray(-ID_WINDOW) : piece)));
  return Buffer.from(joined.subarray(-ID_WINDOW));
}

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"jsonrpc":"2.0","id":7,` as the Python SDK writes an answer. */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}\s*,`);
/** `,"jsonrpc":"2.0","id":7}` as the TypeScript SDK writes one. */
const ID_AT_END = new RegExp(String.raw`,\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

export function idAtStart(text: string): RequestId | undefined {
  return requestId(ID_AT_START.exec(text)?.[1]);
}

export function idAtEnd(text: string): RequestId | undefined {
  return requestId(ID_AT_END.exec(text)?.[1]);
}

function requestId(token: string | undefined): RequestId | undefined {
  if (token === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(token);
    return typeof id === "number" || typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}
