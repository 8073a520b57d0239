/**
 * The MCP server as a process: wires `process` (argv, stdio, SIGINT/SIGTERM) into `runMcpCli` and turns a
 * bug into one line instead of a stack trace. Shared by `npm run mcp` (scripts/mcp.ts) and `sigloop mcp`
 * (src/bin/), which differ only in where the project is.
 */
import { internalErrorLine } from "../cli/internal-error-line.js";
import { EXIT } from "../cli/report-result.js";
import { endWhenOutputCloses } from "../cli/closed-output.js";
import { reportStrayErrors } from "../cli/stray-errors.js";
import { runMcpCli } from "./run-mcp-cli.js";

export interface McpProcessOptions {
  argv: readonly string[];
  /** Where the user (or the client) started the server: relative paths in flags resolve against it. */
  cwd: string;
  /** Where `generated/schemas.json` is. */
  projectRoot: string;
}

/** Serves until stdin closes or a stop signal; returns the exit code. */
export function runMcpProcess(options: McpProcessOptions): Promise<number> {
  // stdout is the stdio transport's: what its loss means is the server's to decide.
  endWhenOutputCloses([process.stderr]);
  const stopReporting = reportStrayErrors(process.stderr, [process.env.OPENAI_API_KEY ?? "", process.env.ANTHROPIC_API_KEY ?? ""], process.env.OPENAI_BASE_URL);
  return runMcpCli({
    argv: options.argv,
    cwd: options.cwd,
    projectRoot: options.projectRoot,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    onStopSignal(handler) {
      const onInt = () => handler("SIGINT");
      const onTerm = () => handler("SIGTERM");
      process.once("SIGINT", onInt);
      process.once("SIGTERM", onTerm);
      return () => {
        process.off("SIGINT", onInt);
        process.off("SIGTERM", onTerm);
      };
    },
  })
    .catch((error: unknown) => {
      process.stderr.write(internalErrorLine(error, process.env.OPENAI_API_KEY ?? "", process.env.OPENAI_BASE_URL));
      return EXIT.internal;
    })
    .finally(stopReporting);
}
