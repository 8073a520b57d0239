/**
 * `npm run mcp` (and any bin that wants the same command): reads the flags, refuses to start without a
 * workspace (exit 2) or with missing or stale schemas (exit 5, before anything is served), then serves
 * the tools over stdio until stdin closes (exit 0), SIGINT (130) or SIGTERM (143), in-flight calls
 * aborted first; or, with `--http`, over Streamable HTTP (`http/run-http.ts`). Everything the process
 * touches comes in through `McpCliEnvironment`.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { coalescedOutput } from "../cli/coalesced-output.js";
import { EXIT } from "../cli/report-result.js";
import { escapeControls } from "../cli/terminal-safe.js";
import { keyMask, type KeyMask } from "../runtime/model/key-mask.js";
import { loadSchemas } from "../runtime/execution/load-schemas.js";
import { nonRegularFileProblem } from "../runtime/workspace/regular-file.js";
import { commandLine, packageVersion } from "../shared/package-layout.js";
import { createMcpServer } from "./create-mcp-server.js";
import { divertStdout } from "./divert-stdout.js";
import { createLineFraming } from "./line-framing.js";
import { DEFAULT_MAX_CONCURRENT_CALLS } from "./call-queue.js";
import { MCP_USAGE, parseMcpArgs } from "./parse-mcp-args.js";
import { watchFile } from "./watch-file.js";
import type { StopSignal } from "./http/run-http.js";

export type { StopSignal };

export interface McpCliEnvironment {
  argv: readonly string[];
  /** The directory the user ran the command from (relative paths in flags are resolved against it). */
  cwd: string;
  /** The project root: its `generated/schemas.json` is the default `--schemas`. */
  projectRoot: string;
  stdin: NodeJS.ReadableStream;
  /** Protocol messages only: while serving, its `write` is diverted to stderr for everyone else. */
  stdout: NodeJS.WritableStream;
  stderr: { write(text: string): unknown };
  /** Subscribes to SIGINT and SIGTERM; returns the unsubscribe function. */
  onStopSignal(handler: (signal: StopSignal) => void): () => void;
  /** `$SIGLOOP_MCP_TOKEN` (HTTP) and `$OPENAI_API_KEY` (masked in every line); none when absent. */
  env?: NodeJS.ProcessEnv;
}

const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: EXIT.interrupted, SIGTERM: 143 };

export async function runMcpCli(io: McpCliEnvironment): Promise<number> {
  const env = io.env ?? {};
  // Built once each: keyMask caches only the last key it was asked for.
  const masks: KeyMask[] = [keyMask(env.OPENAI_API_KEY ?? "")];
  // Lines quote paths, parser messages and client input: escaped as the agent's progress is, and masked.
  const format = (line: string): string => `${escapeControls(masks.reduce((text, mask) => mask.scrub(text), line))}\n`;
  // Over HTTP each request leaves a line once its response has ended. Those lines leave in one write per
  // turn of the event loop: a system call each was about a fifth of sigloop's own work per call on a busy
  // server. Everything else is written at once, after the request lines before it.
  const requestLines = coalescedOutput((text) => void io.stderr.write(text));
  const stderr = { write: (text: string): void => void (requestLines.flush(), io.stderr.write(text)) };
  const log = (line: string): void => stderr.write(format(line));
  const usageError = (message: string): number => {
    log(`error: ${message}\nRun ${commandLine("mcp", "--help")} for usage.`);
    return EXIT.usage;
  };
  const parsed = parseMcpArgs(io.argv);
  if (!parsed.ok) return usageError(parsed.error);
  const { args } = parsed;
  if (args.help) {
    io.stdout.write(`${MCP_USAGE}\n`);
    return EXIT.answer;
  }
  if (args.workspace === undefined) {
    return usageError("--workspace DIR is required: MCP clients start servers from / or the home folder, so name the only directory the tools may touch");
  }
  const workspace = path.resolve(io.cwd, args.workspace);
  if (!isDirectory(workspace)) return usageError(`the workspace ${workspace} is not a directory (--workspace)`);
  const schemasPath = args.schemas !== undefined ? path.resolve(io.cwd, args.schemas) : path.join(io.projectRoot, "generated", "schemas.json");
  const schemasNotFile = nonRegularFileProblem(schemasPath);
  if (schemasNotFile !== undefined) return usageError(`${schemasNotFile} (--schemas): give the schemas file ${commandLine("gen")} writes`);
  const loaded = loadSchemas(schemasPath, io.cwd);
  if (!loaded.ok) {
    log(`error: ${loaded.error.message}`);
    return EXIT.schemas;
  }

  // Tools print; over stdio that would corrupt the stream, over HTTP it belongs with the logs all the same.
  const writeProtocol = divertStdout(io.stdout, stderr);
  const handle = createMcpServer({
    schemasPath,
    schemas: loaded.schemas,
    workspace,
    log,
    info: { name: "sigloop", version: packageVersion() },
    ...(args.toolTimeoutMs !== undefined ? { toolTimeoutMs: args.toolTimeoutMs } : {}),
    ...(args.maxConcurrentCalls !== undefined ? { maxConcurrentCalls: args.maxConcurrentCalls } : {}),
    // Over stdio every pipelined call waits its turn; over HTTP a full queue is answered 503 instead.
    ...(args.http !== undefined ? { maxQueuedCalls: 4 * (args.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS) } : {}),
  });
  let finish: (code: number) => void = () => undefined;
  const ended = new Promise<number>((resolve) => (finish = resolve));
  let stopSignal: (signal: StopSignal) => void = () => undefined;
  const stopped = new Promise<StopSignal>((resolve) => (stopSignal = resolve));
  const stopListening = io.onStopSignal((signal) => {
    finish(SIGNAL_EXIT[signal]);
    stopSignal(signal);
  });
  const reload = (): void =>
    void handle.reload().catch((error: unknown) => log(`mcp: ${schemasPath} changed but could not be reloaded (${String(error)}); still serving the previous tools`));
  const stopWatching = watchFile(schemasPath, reload, (error) => log(`mcp: cannot watch ${schemasPath} for changes (${error.message}); restart the server after ${commandLine("gen")}`));
  const announce = (): void => log(`mcp: serving ${loaded.schemas.tools.length} tools from ${schemasPath} (workspace ${workspace})`);

  if (args.http !== undefined) {
    // Loaded only here: over stdio, start-up stays free of the HTTP transport and the JWT library.
    const { runHttpMode } = await import("./http/run-http.js");
    // Announced once listening: a port in use or a missing token file is refused (exit 2) without it.
    const code = await runHttpMode({ http: args.http, handle, env, cwd: io.cwd, announce, log, logRequest: (line) => requestLines.write(format(line)), usageError, stopSignal: stopped, addSecrets: (tokens) => void masks.push(...tokens.map(keyMask)) });
    requestLines.flush();
    stopListening();
    stopWatching();
    return code;
  }

  announce();
  const server = handle.newServer({ listChanged: true, onClose: () => finish(EXIT.answer) });
  server.onerror = (error) => log(`mcp: ${error.message}`);
  await server.connect(createLineFraming({ input: io.stdin, write: writeProtocol }));
  const code = await ended;
  stopListening();
  stopWatching();
  await handle.abortCalls();
  await server.close();
  return code;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
