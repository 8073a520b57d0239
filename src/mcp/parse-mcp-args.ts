/**
 * The command line of `npm run mcp`: `--schemas FILE`, `--workspace DIR`, `--tool-timeout MS`,
 * `--max-concurrent-calls N` and `--help`, with the agent's meanings and syntax (`--flag VALUE` or `--flag=VALUE`). The values are read
 * by the agent's own parser; this module only keeps out what `mcp` does not take (other flags, a prompt).
 */
import { parseAgentArgs } from "../cli/parse-agent-args.js";
import { commandLine, compiled } from "../shared/package-layout.js";

export interface McpArgs {
  schemas?: string;
  workspace?: string;
  toolTimeoutMs?: number;
  maxConcurrentCalls?: number;
  help: boolean;
}

const VALUE_FLAGS = new Set(["--schemas", "--workspace", "--tool-timeout"]);
/** The server's own flag, read here: the agent has no such flag. */
const MAX_CONCURRENT_CALLS = "--max-concurrent-calls";

export const MCP_USAGE = `Usage: ${compiled ? "npx sigloop mcp" : "npm run --silent mcp --"} --workspace DIR [flags]

Serves the tools in generated/schemas.json to an MCP client over stdio (stdout carries protocol
messages only; logs go to stderr).${compiled ? "" : " Use --silent: npm's own banner on stdout would corrupt the stream."}

Flags:
  --workspace DIR       the only directory tools may touch (required: clients start servers from / or ~)
  --schemas FILE        tool schemas to serve (default: generated/schemas.json of the project)
  --tool-timeout MS     how long one tool call may run (default 60000)
  --max-concurrent-calls N
                        calls run at once; more wait their turn (default 16)
  --help                this text

Exit codes: 0 stdin closed, 2 usage or setup error, 5 schemas missing or stale (run ${commandLine("gen")}),
            130 SIGINT, 143 SIGTERM, 70 internal error (a bug in sigloop).`;

export function parseMcpArgs(argv: readonly string[]): { ok: true; args: McpArgs } | { ok: false; error: string } {
  const own = takeMaxConcurrentCalls(argv);
  if (!own.ok) return own;
  const rest = own.rest;
  for (let i = 0; i < rest.length; i += 1) {
    const token = rest[i] ?? "";
    if (!token.startsWith("-") || token === "--") return { ok: false, error: `${commandLine("mcp")} takes flags only, got ${JSON.stringify(token)}` };
    const name = token.includes("=") ? token.slice(0, token.indexOf("=")) : token;
    if (name !== "--help" && !VALUE_FLAGS.has(name)) return { ok: false, error: `unknown flag ${name}` };
    if (VALUE_FLAGS.has(name) && !token.includes("=")) i += 1;
  }
  const parsed = parseAgentArgs(rest);
  if (!parsed.ok) return parsed;
  const { schemas, workspace, toolTimeoutMs, help } = parsed.args;
  return {
    ok: true,
    args: {
      help,
      ...(schemas !== undefined ? { schemas } : {}),
      ...(workspace !== undefined ? { workspace } : {}),
      ...(toolTimeoutMs !== undefined ? { toolTimeoutMs } : {}),
      ...(own.value !== undefined ? { maxConcurrentCalls: own.value } : {}),
    },
  };
}

/** `--max-concurrent-calls N` (or `=N`) taken out of `argv`: a whole number of at least 1. */
function takeMaxConcurrentCalls(argv: readonly string[]): { ok: true; rest: string[]; value?: number } | { ok: false; error: string } {
  const rest: string[] = [];
  let value: number | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i] ?? "";
    if (token !== MAX_CONCURRENT_CALLS && !token.startsWith(`${MAX_CONCURRENT_CALLS}=`)) {
      rest.push(token);
      // A value that looks like this flag belongs to the flag before it.
      if (VALUE_FLAGS.has(token)) rest.push(argv[(i += 1)] ?? "");
      continue;
    }
    const text = token.includes("=") ? token.slice(token.indexOf("=") + 1) : argv[(i += 1)];
    if (text === undefined || text === "") return { ok: false, error: `${MAX_CONCURRENT_CALLS} needs a value` };
    if (!/^[0-9]+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
      return { ok: false, error: `${MAX_CONCURRENT_CALLS} needs a whole number of at least 1, got ${JSON.stringify(text)}` };
    }
    value = Number(text);
  }
  return { ok: true, rest, ...(value !== undefined ? { value } : {}) };
}
