/**
 * The subcommands of the `sigloop` bin. Each one loads its own part of sigloop only when chosen, so
 * `sigloop agent` never loads the generator (nor the TypeScript compiler) and `sigloop gen` never loads the
 * model client. A new subcommand is one entry here. Run from a subfolder, a command works on the nearest
 * project upwards (`projectRoot`); flags still resolve against the current folder.
 */
import path from "node:path";
import { flagGiven, helpRequested } from "../shared/command-flags.js";
import { enableModuleCompileCache } from "../shared/compile-cache.js";
import { projectRootFor } from "../shared/project-root.js";

export interface Command {
  /** One line for `sigloop --help`. */
  summary: string;
  /** Runs the command with the arguments after its name; resolves to the exit code, or `undefined` while it keeps running (`gen --watch`). */
  run(argv: readonly string[]): Promise<number | undefined>;
}

export const COMMANDS: Record<string, Command> = {
  gen: {
    summary: "tools/*.ts → generated/schemas.json (--tools DIR, --out FILE, --check, --watch)",
    async run(argv) {
      const { processIo, runGen } = await import("../gen/command/run-gen.js");
      const result = runGen(argv, { ...processIo(), root: projectRoot(argv, "package.json") });
      return typeof result === "number" ? result : undefined;
    },
  },
  agent: {
    summary: 'run the agent over generated/schemas.json: sigloop agent [flags] "prompt" (sigloop agent --help)',
    async run(argv) {
      enableModuleCompileCache();
      const { runAgentProcess } = await import("../cli/agent-process.js");
      const root = projectRoot(argv, SCHEMAS_FILE);
      return runAgentProcess({ argv, cwd: process.cwd(), projectRoot: root, envFile: path.join(root, ".env") });
    },
  },
  mcp: {
    summary: "serve the tools over MCP (stdio, or --http [HOST:]PORT) to clients: sigloop mcp --workspace DIR (sigloop mcp --help)",
    async run(argv) {
      enableModuleCompileCache();
      const { runMcpProcess } = await import("../mcp/mcp-process.js");
      return runMcpProcess({ argv, cwd: process.cwd(), projectRoot: projectRoot(argv, SCHEMAS_FILE) });
    },
  },
  demo: {
    summary: "watch a scripted model make every classic mistake and the loop recover (no key, no network)",
    async run(argv) {
      enableModuleCompileCache();
      const { runDemo } = await import("../demo/run-demo.js");
      return runDemo(argv);
    },
  },
};

const SCHEMAS_FILE = path.join("generated", "schemas.json");

/**
 * The folder a command treats as its project: the current one, or, when it does not hold `marker`, the
 * nearest one upwards that does (one stderr line names it). A named `--schemas` file needs no search.
 */
function projectRoot(argv: readonly string[], marker: string): string {
  const cwd = process.cwd();
  if (helpRequested(argv) || (marker === SCHEMAS_FILE && flagGiven(argv, "--schemas"))) return cwd;
  const { root, line } = projectRootFor(cwd, marker);
  if (line !== undefined) process.stderr.write(`${line}\n`);
  return root;
}
