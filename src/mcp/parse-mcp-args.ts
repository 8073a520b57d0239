/**
 * The command line of `npm run mcp`: `--schemas FILE`, `--workspace DIR`, `--tool-timeout MS` and
 * `--help`, with the agent's meanings and syntax (`--flag VALUE` or `--flag=VALUE`). The values are read
 * by the agent's own parser; this module only keeps out what `mcp` does not take (other flags, a prompt).
 */
import { parseAgentArgs } from "../cli/parse-agent-args.js";
import { helpRequested, unknownFlag, type FlagTable } from "../shared/command-flags.js";
import { commandLine, compiled } from "../shared/package-layout.js";

export interface McpArgs {
  schemas?: string;
  workspace?: string;
  toolTimeoutMs?: number;
  help: boolean;
}

/** Every flag of `mcp`: what an unknown flag is compared with to name the one meant. */
export const MCP_FLAGS: FlagTable = { "--workspace": "value", "--schemas": "value", "--tool-timeout": "value", "--help": "switch" };

export const MCP_USAGE = `Usage: ${compiled ? "npx sigloop mcp" : "npm run --silent mcp --"} --workspace DIR [flags]

Serves the tools in generated/schemas.json to an MCP client over stdio (stdout carries protocol
messages only; logs go to stderr).${compiled ? "" : " Use --silent: npm's own banner on stdout would corrupt the stream."}

Flags:
  --workspace DIR       the only directory tools may touch (required: clients start servers from / or ~)
  --schemas FILE        tool schemas to serve (default: generated/schemas.json of the project)
  --tool-timeout MS     how long one tool call may run (default 60000)
  --help, -h            this text (wherever it stands; nothing else is done)

Exit codes: 0 stdin closed, 2 usage or setup error, 5 schemas missing or stale (run ${commandLine("gen")}),
            130 SIGINT, 143 SIGTERM, 70 internal error (a bug in sigloop).`;

export function parseMcpArgs(argv: readonly string[]): { ok: true; args: McpArgs } | { ok: false; error: string } {
  if (helpRequested(argv)) return { ok: true, args: { help: true } };
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i] ?? "";
    if (!token.startsWith("-") || token === "--") return { ok: false, error: `${commandLine("mcp")} takes flags only, got ${JSON.stringify(token)}` };
    const name = token.includes("=") ? token.slice(0, token.indexOf("=")) : token;
    const kind = Object.hasOwn(MCP_FLAGS, name) ? MCP_FLAGS[name] : undefined;
    if (kind === undefined) return { ok: false, error: unknownFlag(name, MCP_FLAGS).message };
    if (kind === "value" && !token.includes("=")) i += 1;
  }
  const parsed = parseAgentArgs(argv);
  if (!parsed.ok) return parsed;
  const { schemas, workspace, toolTimeoutMs, help } = parsed.args;
  return {
    ok: true,
    args: { help, ...(schemas !== undefined ? { schemas } : {}), ...(workspace !== undefined ? { workspace } : {}), ...(toolTimeoutMs !== undefined ? { toolTimeoutMs } : {}) },
  };
}
