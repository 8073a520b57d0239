/**
 * The subcommands of the `sigloop` bin. Each one loads its own part of sigloop only when chosen, so
 * `sigloop agent` never loads the generator (nor the TypeScript compiler) and `sigloop gen` never loads the
 * model client. A new subcommand is one entry here.
 */
import path from "node:path";

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
      const { deferOptimizingCompiler } = await import("../gen/one-shot-tiering.js");
      deferOptimizingCompiler();
      const { processIo, runGen } = await import("../gen/run-gen.js");
      const result = runGen(argv, processIo());
      return typeof result === "number" ? result : undefined;
    },
  },
  agent: {
    summary: 'run the agent over generated/schemas.json: sigloop agent [flags] "prompt" (sigloop agent --help)',
    async run(argv) {
      const { runAgentProcess } = await import("../cli/agent-process.js");
      const cwd = process.cwd();
      return runAgentProcess({ argv, cwd, projectRoot: cwd, envFile: path.join(cwd, ".env") });
    },
  },
  mcp: {
    summary: "serve the tools over MCP (stdio) to a client: sigloop mcp --workspace DIR (sigloop mcp --help)",
    async run(argv) {
      const { runMcpProcess } = await import("../mcp/mcp-process.js");
      return runMcpProcess({ argv, cwd: process.cwd(), projectRoot: process.cwd() });
    },
  },
  demo: {
    summary: "watch a scripted model make every classic mistake and the loop recover (no key, no network)",
    async run(argv) {
      const { runDemo } = await import("../demo/run-demo.js");
      return runDemo(argv);
    },
  },
};
