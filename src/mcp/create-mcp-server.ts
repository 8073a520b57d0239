/**
 * The MCP server over the generated schemas: `tools/list` serves each tool's generated `parameters` as
 * its `inputSchema` and its `outputs` entry as `outputSchema`, both in JSON Schema 2020-12
 * (json-schema-2020.ts), and its `annotations`;
 * `tools/call` goes through the same executor as the agent loop, and through one call queue
 * (`--max-concurrent-calls`). Everything it holds (the tool set, the queue, the calls in flight, the
 * reload generation) lives in this closure and is shared by every protocol server `newServer` makes: one
 * over stdio, one per HTTP session (or per request when stateless).
 *
 * `tools/call` is answered by the SDK's fallback request handler, not by a handler registered with
 * `CallToolRequestSchema`: the SDK parses registered requests with its own schema first, and would answer
 * arguments that are not an object with a bare "Internal error" before the executor could say what is
 * wrong. Here every `arguments` value reaches the executor, which answers as the loop does.
 *
 * What a tool reports while it runs goes to the client that called it, on that request's stream:
 * `notifications/progress` when its `tools/call` carried `_meta.progressToken`, and `notifications/message`
 * (the `logging` capability; the tool's name as `logger`) at `info` and above until the client sets
 * another level with `logging/setLevel`, for its own session.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, ListToolsRequestSchema, type CallToolResult, type JSONRPCRequest, type ServerNotification, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Ajv } from "ajv";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonSchema, SchemasFile } from "../shared/schemas-file.js";
import { loadSchemas } from "../runtime/execution/load-schemas.js";
import { createToolExecutor, DEFAULT_MAX_RESULT_CHARS, type ToolRunner } from "../runtime/execution/tool-executor.js";
import { importToolModule } from "../runtime/execution/import-tool-module.js";
import { abortWhenAny } from "../runtime/execution/abort-fan-out.js";
import { createAjv2020, toJsonSchema2020 } from "./json-schema-2020.js";
import { toolResult, type OutputCheck } from "./tool-result.js";
import { CallQueue, DEFAULT_MAX_CONCURRENT_CALLS, QueueFull } from "./call-queue.js";
import { idString } from "./id-literals.js";
import { commandLine } from "../shared/package-layout.js";
import { isLogLevel, LOG_LEVELS, logLevelPasses, type LogLevel } from "../runtime/execution/tool-reports.js";
import type { ToolReport } from "../runtime/loop/types.js";

export interface McpServerOptions {
  /** The schemas file; reloads read it again. */
  schemasPath: string;
  /** Its contents, already loaded and found current. */
  schemas: SchemasFile;
  /** The real path of the workspace root. */
  workspace: string;
  toolTimeoutMs?: number;
  maxResultChars?: number;
  /** Calls running at once (default 16, `call-queue.ts`). */
  maxConcurrentCalls?: number;
  /** Calls that may wait beyond those (default unbounded: every call is answered in its turn). */
  maxQueuedCalls?: number;
  /** One line for stderr (no newline). */
  log: (line: string) => void;
  /** The name and version the server gives the client. */
  info: { name: string; version: string };
}

export interface NewServerOptions {
  /** Whether it advertises `listChanged` and is told of reloads (not for a stateless request's server). */
  listChanged: boolean;
  /**
   * A stateless request's server: it serves one request and never sees the client's `initialize`, so it
   * does not hold requests to MCP's lifecycle (a session's server does).
   */
  stateless?: boolean;
  /** Called with +1 when one of its calls starts (queued or running) and -1 when it has its outcome. */
  onCallActivity?: (delta: 1 | -1) => void;
  /** Called once its transport has closed (it is then told of no more reloads). */
  onClose?: () => void;
}

export interface McpServerHandle {
  /** A protocol server over the shared tool set, not yet connected. */
  newServer(options: NewServerOptions): Server;
  /** The shared call queue (the HTTP server answers 503 up front when it is full). */
  queue: CallQueue;
  /** Reads the schemas file again; when it changed and is current, serves the new tool set and tells the client. */
  reload(): Promise<void>;
  /** Aborts every call in flight and waits until each has its outcome. */
  abortCalls(): Promise<void>;
  /** Resolves once every call now in flight has its outcome. */
  callsSettled(): Promise<void>;
}

interface ToolSet {
  schemas: SchemasFile;
  /** What `schemas` was, as text: a reload that finds the same text changes nothing. */
  text: string;
  executor: ToolRunner;
  list: Tool[];
  outputs: Map<string, Promise<OutputCheck>>;
}

export function createMcpServer(options: McpServerOptions): McpServerHandle {
  const { schemasPath, workspace, log } = options;
  const maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const stopAll = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  let ajv: Ajv | undefined;
  let generation = 0;
  let tools = toolSet(options.schemas);
  const queue = new CallQueue(options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS, options.maxQueuedCalls ?? Number.POSITIVE_INFINITY);
  /** The servers told of reloads, while connected. */
  const listeners = new Set<Server>();

  function newServer(serverOptions: NewServerOptions): Server {
    const server = new Server(options.info, { capabilities: { tools: serverOptions.listChanged ? { listChanged: true } : {}, logging: {} } });
    let logLevel: LogLevel = "info";
    // Answered below instead: the SDK's own handler sends every level until a client sets one, and
    // answers a level that is not MCP's with an internal error rather than -32602.
    server.removeRequestHandler("logging/setLevel");
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      refuseBeforeInitialize(server, serverOptions.stateless, request.method);
      return { tools: tools.list };
    });
    server.fallbackRequestHandler = async (request, extra) => {
      if (request.method === "logging/setLevel") {
        refuseBeforeInitialize(server, serverOptions.stateless, request.method);
        logLevel = requestedLevel(request);
        return {};
      }
      if (request.method !== "tools/call") throw protocolError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
      refuseBeforeInitialize(server, serverOptions.stateless, request.method);
      serverOptions.onCallActivity?.(1);
      const reporting = reportsTo(request, (notification) => extra.sendNotification(notification), () => logLevel);
      // The pause after the last progress is part of the call: shutdown waits for it, as for the call.
      const call = queuedCall(request, extra.signal, reporting.onReport).then(reporting.afterLastProgress);
      inFlight.add(call);
      try {
        return await call;
      } finally {
        inFlight.delete(call);
        serverOptions.onCallActivity?.(-1);
      }
    };
    if (serverOptions.listChanged) listeners.add(server);
    server.onclose = () => {
      listeners.delete(server);
      serverOptions.onClose?.();
    };
    return server;
  }

  async function queuedCall(request: JSONRPCRequest, cancelled: AbortSignal, onReport: (report: ToolReport) => void): Promise<CallToolResult> {
    const { signal, release } = abortWhenAny([cancelled, stopAll.signal]);
    try {
      return await queue.run(() => callTool(request, signal, onReport), signal);
    } catch (error) {
      if (error instanceof QueueFull) throw protocolError(SERVER_BUSY, error.message);
      // Aborted while waiting: the executor answers an aborted call as the loop does, without running it.
      if (signal.aborted) return callTool(request, signal, onReport);
      throw error;
    } finally {
      release();
    }
  }

  /** MCP's lifecycle: nothing but `initialize` and `ping` is served before the client's `initialize`. */
  function refuseBeforeInitialize(server: Server, stateless: boolean | undefined, method: string): void {
    if (stateless !== true && server.getClientVersion() === undefined) {
      throw protocolError(ErrorCode.InvalidRequest, `Invalid Request: ${method} before initialize; send initialize first, as MCP's lifecycle says.`);
    }
  }

  function toolSet(schemas: SchemasFile): ToolSet {
    // Tool modules are imported again after a reload, while what they import (the runtime's
    // toolContext among it) stays the one instance.
    const reload = generation;
    const executor = createToolExecutor({
      schemas,
      schemasDir: path.dirname(schemasPath),
      maxResultChars,
      ...(options.toolTimeoutMs !== undefined ? { timeoutMs: options.toolTimeoutMs } : {}),
      importModule: (url, toolFiles) => (reload === 0 ? importToolModule(url, toolFiles) : importAgain(url, reload, toolFiles)),
    });
    const list = schemas.tools.map(({ function: { name, description, parameters } }): Tool => {
      const outputSchema = schemas.outputs?.[name];
      const annotations = schemas.annotations?.[name];
      return {
        name,
        description,
        inputSchema: toJsonSchema2020(parameters) as Tool["inputSchema"],
        ...(outputSchema !== undefined ? { outputSchema: toJsonSchema2020(outputSchema) as Tool["outputSchema"] & object } : {}),
        ...(annotations !== undefined ? { annotations } : {}),
      };
    });
    return { schemas, text: JSON.stringify(schemas), executor, list, outputs: new Map() };
  }

  /** Each output schema is compiled on its tool's first structured result, like the argument validators. */
  function outputCheck(set: ToolSet, name: string): Promise<OutputCheck> | undefined {
    const schema = set.list.find((tool) => tool.name === name)?.outputSchema as JsonSchema | undefined;
    if (schema === undefined) return undefined;
    let check = set.outputs.get(name);
    if (check === undefined) {
      // The schema the client was given, checked in its own dialect.
      check = Promise.resolve().then(() => {
        ajv ??= createAjv2020();
        return { schema, validate: ajv.compile(schema) };
      });
      set.outputs.set(name, check);
    }
    return check;
  }

  /** `signal` fires on the client's `notifications/cancelled` (the SDK's signal for this request) and on shutdown. */
  async function callTool(request: JSONRPCRequest, signal: AbortSignal, onReport: (report: ToolReport) => void): Promise<CallToolResult> {
    const params = request.params ?? {};
    const name: unknown = params.name;
    if (typeof name !== "string") {
      throw protocolError(ErrorCode.InvalidParams, `tools/call needs params.name, the name of a tool as a string. Available tools: ${tools.list.map((tool) => tool.name).join(", ")}.`);
    }
    const set = tools;
    let argumentsText: string;
    try {
      argumentsText = params.arguments === undefined ? "" : JSON.stringify(params.arguments);
    } catch (error) {
      // JSON.parse took it, but writing it back needs more stack: nesting thousands deep.
      return { content: [{ type: "text", text: `The arguments for ${name} are nested too deeply to read (${String(error)}), so it was not run. Send the arguments again with far less nesting.` }], isError: true };
    }
    const run = await set.executor.run({ id: idString(request.id), type: "function", function: { name, arguments: argumentsText } }, { workspace, signal, onReport });
    if (run.status === "unknown_tool") throw protocolError(ErrorCode.InvalidParams, run.content);
    let output: OutputCheck | undefined;
    try {
      output = run.status === "ok" ? await outputCheck(set, name) : undefined;
    } catch (error) {
      return { content: [{ type: "text", text: `The output schema of ${name} could not be compiled (${String(error)}); run ${commandLine("gen")} to write a valid one.` }], isError: true };
    }
    return toolResult(name, run, output, maxResultChars);
  }

  return {
    newServer,
    queue,
    async reload() {
      const loaded = loadSchemas(schemasPath);
      if (!loaded.ok) {
        log(`mcp: ${schemasPath} changed but cannot be served (${loaded.error.message}); still serving the previous ${tools.list.length} tools`);
        return;
      }
      if (JSON.stringify(loaded.schemas) === tools.text) return;
      generation += 1;
      tools = toolSet(loaded.schemas);
      log(`mcp: reloaded ${tools.list.length} tools from ${schemasPath}`);
      await Promise.all([...listeners].map((server) => server.sendToolListChanged().catch((error: unknown) => log(`mcp: could not tell a client the tools changed: ${String(error)}`))));
    },
    async abortCalls() {
      stopAll.abort();
      await Promise.allSettled([...inFlight]);
    },
    async callsSettled() {
      await Promise.allSettled([...inFlight]);
    },
  };
}

function requestedLevel(request: JSONRPCRequest): LogLevel {
  const level: unknown = request.params?.level;
  if (isLogLevel(level)) return level;
  throw protocolError(ErrorCode.InvalidParams, `logging/setLevel needs params.level, one of ${LOG_LEVELS.join(", ")}; got ${JSON.stringify(level) ?? "none"}.`);
}

/**
 * Where a call's reports go: progress to the `progressToken` of the request (a string or an integer, as
 * MCP's ProgressToken; none without one), log lines at or above the session's level. A notification
 * that cannot be sent (the client has gone) is dropped: the call's result is what matters.
 */
function reportsTo(request: JSONRPCRequest, send: (notification: ServerNotification) => Promise<void>, logLevel: () => LogLevel): CallReporting {
  const token: unknown = (request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const progressToken = typeof token === "string" || (typeof token === "number" && Number.isSafeInteger(token)) ? token : undefined;
  const logger = typeof request.params?.name === "string" ? request.params.name : "";
  let lastProgress: Promise<void> | undefined;
  return {
    onReport(report) {
      if (report.kind === "progress") {
        if (progressToken === undefined) return;
        const { kind: _kind, ...rest } = report;
        lastProgress = send({ method: "notifications/progress", params: { progressToken, ...rest } }).catch(() => undefined);
      } else if (logLevelPasses(report.level, logLevel())) {
        send({ method: "notifications/message", params: { level: report.level, logger, data: report.message } }).catch(() => undefined);
      }
    },
    afterLastProgress(result) {
      if (lastProgress === undefined) return result;
      return lastProgress.then(() => new Promise((resolve) => setTimeout(() => resolve(result), 10)));
    },
  };
}

interface CallReporting {
  onReport(report: ToolReport): void;
  /**
   * The call's result, 10 ms after its last progress notification went out when it sent any: the
   * TypeScript SDK's client handles a notification a tick after the message that carried it, so a result
   * in the same read would end the request first and its last progress would be lost.
   */
  afterLastProgress(result: CallToolResult): CallToolResult | Promise<CallToolResult>;
}

/**
 * A JSON-RPC error whose message reaches the client as written: the SDK sends any thrown error's `code`
 * and `message`, and its own McpError would put "MCP error -32602:" in front of ours.
 */
function protocolError(code: ErrorCode, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

/** JSON-RPC's range for server errors: the call was not run because the queue is full. */
const SERVER_BUSY = -32000;

const requireCache = createRequire(import.meta.url).cache;

/**
 * A fresh instance of a tool module: a new query string makes one for an ES module; a file loaded as
 * CommonJS (outside any `"type": "module"` package) is cached by path, so its require-cache entry goes too.
 */
function importAgain(url: string, reload: number, toolFiles: readonly string[]): Promise<unknown> {
  delete requireCache[fileURLToPath(url)];
  return importToolModule(`${url}?reload=${reload}`, toolFiles);
}
