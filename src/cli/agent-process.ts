/**
 * The agent CLI as a process: reads `.env`, wires `process` (argv, streams, Ctrl-C) into `runAgentCli`
 * and turns a bug into one line instead of a stack trace. Shared by `npm run agent` (scripts/agent.ts) and
 * `sigloop agent` (src/bin/sigloop.ts), which differ only in where `.env` and the schemas are.
 */
import { existsSync } from "node:fs";
import { divertStdout } from "../mcp/divert-stdout.js";
import { internalErrorLine } from "./internal-error-line.js";
import { scrubSecret } from "../runtime/model/key-mask.js";
import { EXIT } from "./report-result.js";
import { runAgentCli, type WarmUp } from "./run-agent-cli.js";
import { endWhenOutputCloses } from "./closed-output.js";
import { reportStrayErrors } from "./stray-errors.js";

export interface AgentProcessOptions {
  argv: readonly string[];
  /** Where the user ran the command: relative paths in flags resolve against it. */
  cwd: string;
  /** Where `generated/schemas.json` is. */
  projectRoot: string;
  /** The `.env` file to read, if it exists. */
  envFile: string;
  warmUp?: WarmUp;
}

/** After Ctrl-C the run ends within moments; a tool that ignores its signal must not keep the process alive. */
const FORCED_EXIT_MS = 1500;
/** 128 + SIGTERM, as a shell reports a process ended by it. */
const EXIT_TERMINATED = 143;

/** Runs the agent CLI in this process and returns its exit code. */
export async function runAgentProcess(options: AgentProcessOptions): Promise<number> {
  const { envFile } = options;
  // Node's loader keeps variables already set, so the real environment wins over .env.
  if (existsSync(envFile)) {
    try {
      process.loadEnvFile(envFile);
    } catch (error) {
      process.stderr.write(`error: cannot read ${envFile} (${(error as NodeJS.ErrnoException).code ?? String(error)}); fix or remove it\n`);
      return EXIT.usage;
    }
  }
  // SIGTERM ends the run the way Ctrl-C does (calls cancelled, MCP servers closed), then exits 143; with no
  // run in progress (start-up, the chat's prompt) it exits at once, and the servers' process groups are
  // killed on the way out (process-group-transport.ts).
  let terminated = false;
  let stopRun: (() => void) | undefined;
  const onTerminate = () => {
    terminated = true;
    if (stopRun === undefined) process.exit(EXIT_TERMINATED);
    stopRun();
    setTimeout(() => process.exit(EXIT_TERMINATED), FORCED_EXIT_MS).unref();
  };
  process.once("SIGTERM", onTerminate);
  endWhenOutputCloses([process.stdout, process.stderr]);
  const stopReporting = reportStrayErrors(process.stderr, [process.env.OPENAI_API_KEY ?? "", process.env.ANTHROPIC_API_KEY ?? ""], process.env.OPENAI_BASE_URL);
  // stdout holds exactly the answer: what tools print (console.log) goes to stderr, as in MCP mode.
  const writeAnswer = divertStdout(process.stdout, process.stderr);
  const stdout = {
    write: (text: string) => void writeAnswer(text).catch(() => undefined),
    isTTY: process.stdout.isTTY,
    fd: (process.stdout as { fd?: number }).fd,
  };
  return runAgentCli({
    argv: options.argv,
    ...(options.warmUp !== undefined ? { warmUp: options.warmUp } : {}),
    env: process.env,
    cwd: options.cwd,
    projectRoot: options.projectRoot,
    stdin: process.stdin,
    stdout,
    stderr: process.stderr,
    onInterrupt(handler) {
      const onSignal = () => {
        handler();
        setTimeout(() => process.exit(130), FORCED_EXIT_MS).unref();
        process.once("SIGINT", () => process.exit(130));
      };
      process.once("SIGINT", onSignal);
      stopRun = handler;
      return () => {
        process.off("SIGINT", onSignal);
        stopRun = undefined;
      };
    },
  })
    .catch((error: unknown) => {
      process.stderr.write(scrubSecret(internalErrorLine(error, process.env.OPENAI_API_KEY ?? "", process.env.OPENAI_BASE_URL), process.env.ANTHROPIC_API_KEY ?? ""));
      return EXIT.internal;
    })
    .then((code) => (terminated ? EXIT_TERMINATED : code))
    .finally(() => {
      process.off("SIGTERM", onTerminate);
      stopReporting();
    });
}
