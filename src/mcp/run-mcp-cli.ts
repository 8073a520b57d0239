/**
 * `npm run mcp` (and any bin that wants the same command): reads the flags, refuses to start without a
 * workspace (exit 2) or with missing or stale schemas (exit 5, before anything is served), then serves
 * the tools over stdio until stdin closes (exit 0), SIGINT (130) or SIGTERM (143); in-flight calls are
 * aborted first. Everything the process touches comes in through `McpCliEnvironment`.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { EXIT } from "../cli/report-result.js";
import { escapeControls } from "../cli/terminal-safe.js";
import { loadSchemas } from "../runtime/execution/load-schemas.js";
import { nonRegularFileProblem } from "../runtime/workspace/regular-file.js";
import { commandLine, packageRoot } from "../shared/package-layout.js";
import { createMcpServer } from "./create-mcp-server.js";
import { divertStdout } from "./divert-stdout.js";
import { createLineFraming } from "./line-framing.js";
import { MCP_USAGE, parseMcpArgs } from "./parse-mcp-args.js";
import { watchFile } from "./watch-file.js";

export type StopSignal = "SIGINT" | "SIGTERM";

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
}

const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: EXIT.interrupted, SIGTERM: 143 };

export async function runMcpCli(io: McpCliEnvironment): Promise<number> {
  // Lines quote paths, parser messages and client input: escaped as the agent's progress is.
  const log = (line: string): void => void io.stderr.write(`${escapeControls(line)}\n`);
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
  const loaded = loadSchemas(schemasPath);
  if (!loaded.ok) {
    log(`error: ${loaded.error.message}`);
    return EXIT.schemas;
  }

  const writeProtocol = divertStdout(io.stdout, io.stderr);
  const handle = createMcpServer({
    schemasPath,
    schemas: loaded.schemas,
    workspace,
    log,
    info: { name: "sigloop", version: packageVersion(packageRoot) },
    ...(args.toolTimeoutMs !== undefined ? { toolTimeoutMs: args.toolTimeoutMs } : {}),
    ...(args.maxConcurrentCalls !== undefined ? { maxConcurrentCalls: args.maxConcurrentCalls } : {}),
  });
  handle.server.onerror = (error) => log(`mcp: ${error.message}`);
  const transport = createLineFraming({ input: io.stdin, write: writeProtocol });

  let finish: (code: number) => void = () => undefined;
  const ended = new Promise<number>((resolve) => (finish = resolve));
  handle.server.onclose = () => finish(EXIT.answer);
  const stopListening = io.onStopSignal((signal) => finish(SIGNAL_EXIT[signal]));
  const reload = (): void =>
    void handle.reload().catch((error: unknown) => log(`mcp: ${schemasPath} changed but could not be reloaded (${String(error)}); still serving the previous tools`));
  const stopWatching = watchFile(schemasPath, reload, (error) => log(`mcp: cannot watch ${schemasPath} for changes (${error.message}); restart the server after ${commandLine("gen")}`));

  await handle.server.connect(transport);
  log(`mcp: serving ${loaded.schemas.tools.length} tools from ${schemasPath} (workspace ${workspace})`);
  const code = await ended;
  stopListening();
  stopWatching();
  await handle.abortCalls();
  await handle.server.close();
  return code;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** sigloop's own version (the server's, whichever project it serves). */
function packageVersion(root: string): string {
  try {
    const { version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version?: unknown };
    return typeof version === "string" ? version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
