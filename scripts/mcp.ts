/** `npm run --silent mcp -- --workspace DIR`: see docs/mcp.md. */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runMcpProcess } from "../src/mcp/mcp-process.js";

const exitCode = await runMcpProcess({
  argv: process.argv.slice(2),
  // `npm run` starts scripts in the project root; INIT_CWD is where the user (or the client) started it.
  cwd: process.env.INIT_CWD ?? process.cwd(),
  projectRoot: path.resolve(path.dirname(fileURLToPath(import.meta.url)), ".."),
});
// Tools that ignore their abort signal must not keep the process alive.
process.exit(exitCode);
