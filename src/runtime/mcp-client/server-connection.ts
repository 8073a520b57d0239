/**
 * One MCP server for the length of a run: started (stdio in its own process group, or Streamable HTTP),
 * initialised and its tools listed (every `tools/list` page, up to `MAX_TOOL_PAGES`) within a time limit;
 * calls bounded by their own limit, an abort sending `notifications/cancelled` (the SDK's); a server that
 * stops mid-run is started once more by the next call, inside that call's time, and after a second
 * failure stays out for the rest of the run. `notifications/tools/list_changed` lists the tools again.
 * No client capabilities are declared (no roots, sampling or elicitation). A start that fails says why
 * in words (a missing command or `cwd`, the connection's error, the HTTP status). Never throws to its caller.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type Progress, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "./mcp-config.js";
import { describeError, startFailure } from "./server-errors.js";
import { ProcessGroupTransport } from "./process-group-transport.js";

/** `tools/list` pages followed before the rest is left out (with a warning): a server that pages forever cannot hold the start. */
const MAX_TOOL_PAGES = 100;

export type ServerTool = Tool;

export type StartResult = { ok: true; tools: ServerTool[] } | { ok: false; why: string };

export type CallOutcome =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "unavailable"; why: string }
  /** `restarts`: whether the next call starts the server again (false once its one restart is used). */
  | { kind: "stopped"; restarts: boolean }
  | { kind: "timeout" }
  | { kind: "aborted" }
  | { kind: "error"; message: string };

export interface ServerConnectionOptions {
  config: McpServerConfig;
  clientVersion: string;
  onStderrLine(line: string): void;
  /** A line of ours for stderr (pages left out, a failed re-list). */
  onWarning(line: string): void;
  /** The server's tools after a `list_changed`. */
  onToolsChanged(tools: ServerTool[]): void;
}

export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (done: number, total?: number, message?: string) => void;
}

export interface ServerConnection {
  readonly name: string;
  start(timeoutMs: number, signal?: AbortSignal): Promise<StartResult>;
  /** `onProgress`: the server's progress for this call (sent a `progressToken` only when given). */
  call(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome>;
  /**
   * Resolves once a re-list started by `list_changed` is done: a call whose server changed its tools
   * while answering returns after the new list is known, so the next request offers it.
   */
  toolsSettled(): Promise<void>;
  close(): Promise<void>;
}

export function createServerConnection(options: ServerConnectionOptions): ServerConnection {
  const { config } = options;
  let client: Client | undefined;
  let transport: Transport | undefined;
  let state: "idle" | "connected" | "stopped" | "out" | "closed" = "idle";
  let out: string | undefined;
  let restartsLeft = 1;
  let started = false;
  let relisting: Promise<void> | undefined;
  let restarting: Promise<StartResult> | undefined;

  function newTransport(): Transport {
    if (config.type === "http") return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    return new ProcessGroupTransport({ ...config, onStderrLine: options.onStderrLine });
  }

  async function listAllTools(current: Client, signal: AbortSignal, timeoutMs: number): Promise<ServerTool[]> {
    const tools: ServerTool[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await current.listTools(cursor === undefined ? {} : { cursor }, { signal, timeout: timeoutMs });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
      if (cursors.has(cursor)) {
        options.onWarning(`mcp: server ${JSON.stringify(config.name)} sent the same tools/list cursor twice; its tools from there on are left out`);
        return tools;
      }
      cursors.add(cursor);
    }
    options.onWarning(`mcp: server ${JSON.stringify(config.name)} lists its tools over more than ${MAX_TOOL_PAGES} pages; the tools after page ${MAX_TOOL_PAGES} are left out`);
    return tools;
  }

  async function start(timeoutMs: number, outer?: AbortSignal): Promise<StartResult> {
    const current = new Client({ name: "sigloop", version: options.clientVersion }, { capabilities: {} });
    const currentTransport = newTransport();
    client = current;
    transport = currentTransport;
    current.onclose = () => {
      if (client === current && state === "connected") state = "stopped";
    };
    // The SDK reports stray transport errors here; what matters reaches the calls as their own errors.
    current.onerror = () => undefined;
    const signal = outer === undefined ? AbortSignal.timeout(timeoutMs) : AbortSignal.any([outer, AbortSignal.timeout(timeoutMs)]);
    try {
      await untilAborted(current.connect(currentTransport, { signal, timeout: timeoutMs }), signal);
      const tools = await untilAborted(listAllTools(current, signal, timeoutMs), signal);
      current.setNotificationHandler(ToolListChangedNotificationSchema, () => relist(current, timeoutMs));
      if (state === "closed") throw new Error("the run ended while it started");
      state = "connected";
      started = true;
      return { ok: true, tools };
    } catch (error) {
      await currentTransport.close().catch(() => undefined);
      if (client === current) client = undefined;
      const timedOut = signal.aborted && outer?.aborted !== true;
      return { ok: false, why: timedOut ? `it did not finish starting within ${timeoutMs} ms` : startFailure(error, config) };
    }
  }

  function relist(current: Client, timeoutMs: number): void {
    relisting = listAllTools(current, AbortSignal.timeout(timeoutMs), timeoutMs).then(
      (tools) => {
        if (client === current) options.onToolsChanged(tools);
      },
      (error: unknown) => options.onWarning(`mcp: server ${JSON.stringify(config.name)} said its tools changed, but listing them failed (${describeError(error)}); the earlier list is kept`),
    );
  }

  async function toolsSettled(): Promise<void> {
    while (relisting !== undefined) {
      const waiting = relisting;
      await waiting;
      if (relisting === waiting) relisting = undefined;
    }
  }

  async function call(tool: string, args: Record<string, unknown>, { signal, timeoutMs, onProgress }: CallOptions): Promise<CallOutcome> {
    const deadline = Date.now() + timeoutMs;
    if (state === "out" || state === "closed") return { kind: "unavailable", why: out ?? "the run is ending" };
    if (state === "stopped" || state === "idle") {
      // Concurrent calls after a stop share the one restart.
      if (restarting === undefined) {
        if (restartsLeft === 0 || !started) {
          state = "out";
          out ??= "it stopped twice during this run";
          return { kind: "unavailable", why: out };
        }
        restartsLeft -= 1;
        restarting = start(timeoutMs).then((restarted) => {
          restarting = undefined;
          if (!restarted.ok) {
            state = "out";
            out = `it stopped, and starting it again failed: ${restarted.why}`;
          }
          return restarted;
        });
      }
      const restarted = await untilAborted(restarting, signal).catch(() => undefined);
      if (restarted === undefined) return { kind: "aborted" };
      if (!restarted.ok) return { kind: "unavailable", why: out ?? restarted.why };
    }
    const current = client;
    if (current === undefined) return { kind: "unavailable", why: out ?? "it is not connected" };
    const remaining = Math.max(1, deadline - Date.now());
    const forSdk = callSignal(signal);
    try {
      const progress = onProgress !== undefined ? { onprogress: ({ progress, total, message }: Progress) => onProgress(progress, total, message) } : {};
      const result = await current.callTool({ name: tool, arguments: args }, undefined, { signal: forSdk.signal, timeout: remaining, ...progress });
      return { kind: "result", result: result as Record<string, unknown> };
    } catch (error) {
      if (signal.aborted) return { kind: "aborted" };
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return { kind: "timeout" };
      if ((error instanceof McpError && error.code === ErrorCode.ConnectionClosed) || state === "stopped") {
        if (client === current) state = "stopped";
        return { kind: "stopped", restarts: restartsLeft > 0 };
      }
      return { kind: "error", message: describeError(error) };
    } finally {
      forSdk.release();
    }
  }

  return {
    name: config.name,
    start,
    call,
    toolsSettled,
    async close() {
      state = "closed";
      const closing = transport;
      client = undefined;
      await closing?.close().catch(() => undefined);
    },
  };
}

/**
 * A signal of the call's own that follows `outer` until released. The SDK never removes the listener
 * it adds to a request's signal, and the signal a call gets is the whole run's: given that one, every
 * call of a run would stay listening on it (each call slower than the last, and Ctrl-C would send
 * `notifications/cancelled` for every call already answered).
 */
function callSignal(outer: AbortSignal): { signal: AbortSignal; release(): void } {
  const own = new AbortController();
  if (outer.aborted) own.abort(outer.reason);
  const follow = () => own.abort(outer.reason);
  outer.addEventListener("abort", follow, { once: true });
  return { signal: own.signal, release: () => outer.removeEventListener("abort", follow) };
}

/** The SDK's `connect` does not watch its signal while the transport starts: a spawn that hangs is raced here. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error as Error);
      },
    );
  });
}
