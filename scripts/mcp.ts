/** `npm run --silent mcp -- --workspace DIR`: see docs/mcp.md. */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { EXIT } from "../src/cli/report-result.js";
import { runMcpCli } from "../src/mcp/run-mcp-cli.js";

const exitCode = await runMcpCli({
  argv: process.argv.slice(2),
  // `npm run` starts scripts in the project root; INIT_CWD is where the user (or the client) started it.
  cwd: process.env.INIT_CWD ?? process.cwd(),
  projectRoot: path.resolve(path.dirname(fileURLToPath(import.meta.url)), ".."),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
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
}).catch((error: unknown) => {
  process.stderr.write(`internal error (a bug in sigloop, please report it): ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
  return EXIT.internal;
});
// Tools that ignore their abort signal must not keep the process alive.
process.exit(exitCode);
