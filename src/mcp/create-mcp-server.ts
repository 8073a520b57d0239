/**
 * The MCP server over the generated schemas: `tools/list` serves each tool's generated `parameters` as
 * its `inputSchema` (as they are), its `outputs` entry as `outputSchema` and its `annotations`;
 * `tools/call` goes through the same executor as the agent loop. Everything it holds (the tool set,
 * the calls in flight, the reload generation) lives in this closure.
 *
 * `tools/call` is answered by the SDK's fallback request handler, not by a handler registered with
 * `CallToolRequestSchema`: the SDK parses registered requests with its own schema first, and would answer
 * arguments that are not an object with a bare "Internal error" before the executor could say what is
 * wrong. Here every `arguments` value reaches the executor, which answers as the loop does.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, ListToolsRequestSchema, type CallToolResult, type JSONRPCRequest, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Ajv } from "ajv";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SchemasFile } from "../shared/schemas-file.js";
import { loadSchemas } from "../runtime/execution/load-schemas.js";
import { createToolExecutor, DEFAULT_MAX_RESULT_CHARS, type ToolRunner } from "../runtime/execution/tool-executor.js";
import { importToolModule } from "../runtime/execution/import-tool-module.js";
import { createAjv } from "../runtime/execution/validate-arguments.js";
import { toolResult, type OutputCheck } from "./tool-result.js";
import { createCallQueue, DEFAULT_MAX_CONCURRENT_CALLS } from "./call-queue.js";
import { commandLine } from "../shared/package-layout.js";

export interface McpServerOptions {
  /** The schemas file; reloads read it again. */
  schemasPath: string;
  /** Its contents, already loaded and found current. */
  schemas: SchemasFile;
  /** The real path of the workspace root. */
  workspace: string;
  toolTimeoutMs?: number;
  maxResultChars?: number;
  /** Calls running at once; more wait their turn (`call-queue.ts`). Default 16. */
  maxConcurrentCalls?: number;
  /** One line for stderr (no newline). */
  log: (line: string) => void;
  /** The name and version the server gives the client. */
  info: { name: string; version: string };
}

export interface McpServerHandle {
  server: Server;
  /** Reads the schemas file again; when it changed and is current, serves the new tool set and tells the client. */
  reload(): Promise<void>;
  /** Aborts every call in flight and waits until each has its outcome. */
  abortCalls(): Promise<void>;
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
  const queue = createCallQueue(options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS);
  let ajv: Promise<Ajv> | undefined;
  let generation = 0;
  let tools = toolSet(options.schemas);

  const server = new Server(options.info, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    refuseBeforeInitialize(request.method);
    return { tools: tools.list };
  });
  server.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== "tools/call") throw protocolError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    refuseBeforeInitialize(request.method);
    const call = queue.run(() => callTool(request, extra.signal));
    inFlight.add(call);
    try {
      return await call;
    } finally {
      inFlight.delete(call);
    }
  };

  /** MCP's lifecycle: nothing but `initialize` and `ping` is served before the client's `initialize`. */
  function refuseBeforeInitialize(method: string): void {
    if (server.getClientVersion() === undefined) {
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
        inputSchema: parameters as Tool["inputSchema"],
        ...(outputSchema !== undefined ? { outputSchema: outputSchema as Tool["outputSchema"] & object } : {}),
        ...(annotations !== undefined ? { annotations } : {}),
      };
    });
    return { schemas, text: JSON.stringify(schemas), executor, list, outputs: new Map() };
  }

  /** Each output schema is compiled on its tool's first structured result, like the argument validators. */
  function outputCheck(set: ToolSet, name: string): Promise<OutputCheck> | undefined {
    const schema = set.schemas.outputs?.[name];
    if (schema === undefined) return undefined;
    let check = set.outputs.get(name);
    if (check === undefined) {
      ajv ??= createAjv();
      check = ajv.then((instance) => ({ schema, validate: instance.compile(schema) }));
      set.outputs.set(name, check);
    }
    return check;
  }

  /** `cancelled` is the SDK's signal for this request: it fires on the client's `notifications/cancelled`. */
  async function callTool(request: JSONRPCRequest, cancelled: AbortSignal): Promise<CallToolResult> {
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
    const signal = AbortSignal.any([cancelled, stopAll.signal]);
    const run = await set.executor.run({ id: String(request.id), type: "function", function: { name, arguments: argumentsText } }, { workspace, signal });
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
    server,
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
      await server.sendToolListChanged().catch((error: unknown) => log(`mcp: could not tell the client the tools changed: ${String(error)}`));
    },
    async abortCalls() {
      stopAll.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}

/**
 * A JSON-RPC error whose message reaches the client as written: the SDK sends any thrown error's `code`
 * and `message`, and its own McpError would put "MCP error -32602:" in front of ours.
 */
function protocolError(code: ErrorCode, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

const requireCache = createRequire(import.meta.url).cache;

/**
 * A fresh instance of a tool module: a new query string makes one for an ES module; a file loaded as
 * CommonJS (outside any `"type": "module"` package) is cached by path, so its require-cache entry goes too.
 */
function importAgain(url: string, reload: number, toolFiles: readonly string[]): Promise<unknown> {
  delete requireCache[fileURLToPath(url)];
  return importToolModule(`${url}?reload=${reload}`, toolFiles);
}
