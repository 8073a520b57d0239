/**
 * One MCP server for the length of a run: started (stdio in its own process group, or Streamable HTTP,
 * whose answers are read up to the stdio limit, see `bounded-fetch.ts`),
 * initialised and its tools listed (every `tools/list` page, up to `MAX_TOOL_PAGES`) within a time limit;
 * calls bounded by their own limit, an abort sending `notifications/cancelled` (the SDK's; on http it
 * also ends the call's request, see `bounded-fetch.ts`); a server that
 * stops mid-run is started once more by the next call, inside that call's time (the tools it lists then
 * are passed on as after a `list_changed`), and after a second failure stays out for the rest of the
 * run. `notifications/tools/list_changed` lists the tools again:
 * one listing at a time, every notice that arrives meanwhile folded into one more, at most one listing
 * per `RELIST_GAP_MS` after the first, so a server that announces a change whenever it is listed costs a
 * listing a second, not a busy loop. No client capabilities are declared (no roots, sampling or
 * elicitation), and a tool's `outputSchema` is not checked (see `ACCEPT_ANY_OUTPUT`). A start that fails
 * says why in words (a missing command or `cwd`, the connection's error, the HTTP status). Never throws
 * to its caller.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type Progress, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/index.js";
import type { McpServerConfig } from "./mcp-config.js";
import { boundedFetch } from "./bounded-fetch.js";
import { describeError, startFailure } from "./server-errors.js";
import { ANSWER_TOO_LARGE, ProcessGroupTransport } from "./process-group-transport.js";

/** `tools/list` pages followed before the rest is left out (with a warning): a server that pages forever cannot hold the start. */
const MAX_TOOL_PAGES = 100;
/** The least time from one `list_changed` listing's start to the next one's. */
const RELIST_GAP_MS = 1_000;

/**
 * The SDK's check of a call's `structuredContent` against the tool's `outputSchema`, turned off. The SDK
 * compiles every listed `outputSchema` with a plain Ajv in our thread when the tools are listed (one
 * that does not compile, or two sharing an `$id`, failed the whole listing and so left the server out)
 * and runs the server's patterns on the server's own output there (a backtracking `pattern` held the
 * agent for as long as the server liked). The model reads the result as it came either way.
 */
const ACCEPT_ANY_OUTPUT: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

export type ServerTool = Tool;

export type StartResult = { ok: true; tools: ServerTool[] } | { ok: false; why: string };

export type CallOutcome =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "unavailable"; why: string }
  /** `restarts`: whether the next call starts the server again (false once its one restart is used). */
  | { kind: "stopped"; restarts: boolean }
  | { kind: "timeout" }
  | { kind: "aborted" }
  /** The server's answer was longer than the transport reads of one message (`bytes`, and that limit). */
  | { kind: "too_large"; bytes: number; limit: number }
  | { kind: "error"; message: string };

export interface ServerConnectionOptions {
  config: McpServerConfig;
  clientVersion: string;
  onStderrLine(line: string): void;
  /** A line of ours for stderr (pages left out, a failed re-list). */
  onWarning(line: string): void;
  /** The server's tools after a `list_changed`, or as listed by the server started again after it stopped. */
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
   * Resolves once the listings asked for by every `list_changed` received so far are done (not the ones
   * asked for later), or `within` runs out: a call whose server changed its tools while answering returns
   * after the new list is known, so the next request offers it.
   */
  toolsSettled(within?: { signal: AbortSignal; timeoutMs: number }): Promise<void>;
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
  /** `list_changed` notices received, and how many of them the last finished listing covers. */
  let changesAnnounced = 0;
  let changesListed = 0;
  let relisting = false;
  /** Calls waiting for the listing that covers the notices they saw. */
  const settleWaiters = new Set<{ wanted: number; resolve(): void }>();
  let restarting: Promise<StartResult> | undefined;

  function newTransport(): Transport {
    if (config.type === "http") return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch: boundedFetch() });
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
    const current = new Client({ name: "sigloop", version: options.clientVersion }, { capabilities: {}, jsonSchemaValidator: ACCEPT_ANY_OUTPUT });
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
    changesAnnounced += 1;
    if (relisting) return;
    relisting = true;
    void relistUntilCurrent(current, timeoutMs);
  }

  function listedUpTo(count: number): void {
    changesListed = count;
    for (const waiter of settleWaiters) {
      if (waiter.wanted > count) continue;
      settleWaiters.delete(waiter);
      waiter.resolve();
    }
  }

  /** Lists the tools until a listing has started after the latest `list_changed`, one at a time. */
  async function relistUntilCurrent(current: Client, timeoutMs: number): Promise<void> {
    let lastStart = 0;
    while (changesListed < changesAnnounced && client === current) {
      const wait = lastStart + RELIST_GAP_MS - Date.now();
      if (lastStart !== 0 && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
      lastStart = Date.now();
      const covers = changesAnnounced;
      try {
        const tools = await listAllTools(current, AbortSignal.timeout(timeoutMs), timeoutMs);
        if (client === current) options.onToolsChanged(tools);
      } catch (error) {
        options.onWarning(`mcp: server ${JSON.stringify(config.name)} said its tools changed, but listing them failed (${describeError(error)}); the earlier list is kept`);
      }
      listedUpTo(covers);
    }
    relisting = false;
    listedUpTo(changesAnnounced);
  }

  async function toolsSettled(within?: { signal: AbortSignal; timeoutMs: number }): Promise<void> {
    const wanted = changesAnnounced;
    if (changesListed >= wanted) return;
    const listed = new Promise<void>((resolve) => settleWaiters.add({ wanted, resolve }));
    if (within === undefined) return listed;
    await untilAborted(listed, AbortSignal.any([within.signal, AbortSignal.timeout(within.timeoutMs)])).catch(() => undefined);
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
          // A restarted server may offer other tools (an update, a new config): its list is taken as a `list_changed`'s.
          else options.onToolsChanged(restarted.tools);
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
      if (error instanceof McpError && error.code === ANSWER_TOO_LARGE) return { kind: "too_large", ...tooLargeData(error.data) };
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

/** The sizes the transport put in the error standing for an answer it did not read. */
function tooLargeData(data: unknown): { bytes: number; limit: number } {
  const { bytes, limit } = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
  return { bytes: typeof bytes === "number" ? bytes : 0, limit: typeof limit === "number" ? limit : 0 };
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
