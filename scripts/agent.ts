/** `npm run agent -- [flags] "prompt"`: see docs/agent.md. */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runAgentProcess } from "../src/cli/agent-process.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

process.exit(await runAgentProcess({
  argv: process.argv.slice(2),
  // `npm run` starts scripts in the project root; INIT_CWD is where the user typed the command.
  cwd: process.env.INIT_CWD ?? process.cwd(),
  projectRoot,
  envFile: path.join(projectRoot, ".env"),
  // This script's start-up has room for it (docs/tool-execution.md); the installed bin's has not.
  warmUp: "before-first-request",
}));
