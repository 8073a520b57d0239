/**
 * The command line of `npm run agent`: flags are separate tokens (`--model NAME`, or `--model=NAME`) and
 * may come before or after the prompt; the prompt is every other token, joined by spaces; `--` ends the
 * flags. Parsing only: defaults that depend on the environment are applied by the caller.
 */
import { helpRequested, unknownFlag, type FlagTable } from "../shared/command-flags.js";
import { commandLine } from "../shared/package-layout.js";
import { MAX_TIMER_MS } from "../shared/timer-limit.js";

/** The model APIs the agent speaks (`--provider`). */
export const PROVIDERS = ["chat", "anthropic", "responses"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export const REASONING_EFFORTS = ["low", "medium", "high"] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export interface AgentArgs {
  prompt?: string;
  /** `--provider`; unset: the caller decides from the keys set. */
  provider?: ProviderName;
  model?: string;
  maxTokens?: number;
  /** `--thinking TOKENS`: Anthropic's extended thinking budget. */
  thinking?: number;
  reasoningEffort?: ReasoningEffort;
  /** `--record FILE`: the cassette every model exchange is written to. */
  record?: string;
  maxTurns?: number;
  workspace?: string;
  transcript?: string;
  resume?: string;
  schemas?: string;
  /** `--mcp FILE`: the MCP servers to start, an `mcpServers` file. */
  mcp?: string;
  mcpTimeoutMs?: number;
  stream: boolean;
  /** `--strict` / `--no-strict`; unset: the caller decides from the endpoint. */
  strict?: boolean;
  toolTimeoutMs?: number;
  idleTimeoutMs?: number;
  requestTimeoutMs?: number;
  responseTimeoutMs?: number;
  maxResponseBytes?: number;
  contextWindow?: number;
  /** `--allow` names, each flag split at commas; `*` allows every tool. Absent: none. */
  allow?: string[];
  /** `--read-only`: offer no tool that needs approval. */
  readOnly?: true;
  help: boolean;
}

export type ParsedAgentArgs = { ok: true; args: AgentArgs } | { ok: false; error: string };

type NumberFlag = "maxTurns" | "toolTimeoutMs" | "mcpTimeoutMs" | "idleTimeoutMs" | "requestTimeoutMs" | "responseTimeoutMs" | "maxResponseBytes" | "contextWindow" | "maxTokens" | "thinking";
type ChoiceFlag = "provider" | "reasoningEffort";
type ValueFlag = "model" | "workspace" | "transcript" | "resume" | "schemas" | "mcp" | "record" | NumberFlag | ChoiceFlag;

const CHOICES: Record<ChoiceFlag, readonly string[]> = { provider: PROVIDERS, reasoningEffort: REASONING_EFFORTS };

const VALUE_FLAGS: Record<string, ValueFlag> = {
  "--provider": "provider",
  "--model": "model",
  "--max-tokens": "maxTokens",
  "--thinking": "thinking",
  "--reasoning-effort": "reasoningEffort",
  "--record": "record",
  "--max-turns": "maxTurns",
  "--workspace": "workspace",
  "--transcript": "transcript",
  "--resume": "resume",
  "--schemas": "schemas",
  "--tool-timeout": "toolTimeoutMs",
  "--mcp": "mcp",
  "--mcp-timeout": "mcpTimeoutMs",
  "--idle-timeout": "idleTimeoutMs",
  "--request-timeout": "requestTimeoutMs",
  "--response-timeout": "responseTimeoutMs",
  "--max-response-bytes": "maxResponseBytes",
  "--context-window": "contextWindow",
};

/** Flags that stand alone. */
const SWITCH_FLAGS = ["--help", "--no-stream", "--strict", "--no-strict", "--read-only"] as const;

/** Every flag of `agent`: what an unknown flag is compared with to name the one meant. */
export const AGENT_FLAGS: FlagTable = {
  ...Object.fromEntries(Object.keys(VALUE_FLAGS).map((flag) => [flag, "value" as const])),
  ...Object.fromEntries(SWITCH_FLAGS.map((flag) => [flag, "switch" as const])),
  "--allow": "value",
};

const NUMBER_FLAGS = new Set<ValueFlag>(["maxTurns", "toolTimeoutMs", "mcpTimeoutMs", "idleTimeoutMs", "requestTimeoutMs", "responseTimeoutMs", "maxResponseBytes", "contextWindow", "maxTokens", "thinking"]);
/** Milliseconds handed to a timer: refused above what a Node.js timer holds, or they would fire at once. */
const DURATION_FLAGS = new Set<ValueFlag>(["toolTimeoutMs", "mcpTimeoutMs", "idleTimeoutMs", "requestTimeoutMs", "responseTimeoutMs"]);

export const AGENT_USAGE = `Usage: ${commandLine("agent", '[flags] "prompt"')}
       ${commandLine("agent").padEnd(34)} (on a terminal: interactive chat, Ctrl-D to leave)

Flags (before or after the prompt):
  --provider NAME       the model API: chat (OpenAI Chat Completions and compatible endpoints), anthropic
                        (Anthropic Messages) or responses (OpenAI Responses) (default: chat; anthropic
                        when ANTHROPIC_API_KEY is set and OPENAI_API_KEY is not)
  --model NAME          model to ask (default: $AGENT_MODEL, else gpt-4o-mini for chat,
                        claude-sonnet-4-5 for anthropic, gpt-5-mini for responses)
  --max-tokens N        most tokens one answer may take (default: the endpoint's own for chat and
                        responses; 8192 for anthropic, plus the thinking budget)
  --thinking TOKENS     anthropic: extended thinking with this budget (at least 1024; default off)
  --reasoning-effort L  responses: low, medium or high (default: the model's own)
  --record FILE         write every model exchange to FILE, a cassette the testing kit replays (keys never written)
  --max-turns N         model requests per prompt before giving up (default 10)
  --workspace DIR       the only directory tools may touch (default: where you ran the command)
  --transcript FILE     write every message to FILE as JSON lines (a new or empty file)
  --resume FILE         continue the conversation in transcript FILE and append to it
  --schemas FILE        tool schemas to offer (default: generated/schemas.json)
  --tool-timeout MS     how long one tool call may run (default 60000)
  --mcp FILE            also offer the tools of the MCP servers in FILE, the mcpServers format of Claude
                        Desktop, Claude Code and Cursor: { "mcpServers": { "fs": { "command": "npx",
                        "args": ["@modelcontextprotocol/server-filesystem", "."] } } } (stdio: command,
                        args, env, cwd; remote: "type": "http", url, headers; \${VAR} and \${VAR:-default}
                        expand from the environment). A tool t of server fs is offered as fs__t. Only a
                        file named here is ever started
  --mcp-timeout MS      how long each MCP server may take to start and list its tools (default 30000)
  --idle-timeout MS     longest silence inside a model response before it is dropped and retried (default 15000)
  --request-timeout MS  longest wait for a response to start before it is retried (default 600000; without
                        streaming this covers the whole generation)
  --response-timeout MS longest a response may take from its first byte to its end before it is dropped and
                        retried (default 600000)
  --max-response-bytes N
                        largest response body in bytes before it is dropped and retried (default 8388608, 8 MB)
  --context-window TOKENS
                        the model's context window: older history is compacted before a request that would
                        not fit it (default: known for common models; else unknown, and the history is
                        compacted when the endpoint refuses a request as too long)
  --allow TOOL          run TOOL without asking for approval (repeatable or comma-separated; * for all);
                        without it, a tool that needs approval is asked about on a terminal, else refused
  --read-only           offer no tool that needs approval (cannot be combined with --allow)
  --no-stream           plain responses instead of streaming
  --strict, --no-strict offer tools in OpenAI's strict dialect (constrained decoding), or lenient
                        (default: strict when the endpoint is OpenAI's or Azure OpenAI's, else lenient)
  --help, -h            this text (wherever it stands; nothing else is done)

Environment: OPENAI_API_KEY, OPENAI_BASE_URL (chat, responses), ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
             (anthropic; the API root without /v1), AGENT_MODEL (also read from .env in the project root).
Exit codes: 0 answer, 1 turn limit reached, 2 usage or setup error, 3 API error,
            4 the model stopped without an answer, 5 schemas missing or stale,
            6 the conversation does not fit the context window, 70 internal error (a bug in sigloop),
            130 interrupted, 141 stdout or stderr closed by its reader, 143 terminated.`;

export function parseAgentArgs(argv: readonly string[]): ParsedAgentArgs {
  const args: AgentArgs = { stream: true, help: false };
  if (helpRequested(argv)) return { ok: true, args: { ...args, help: true } };
  const promptParts: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i] ?? "";
    if (token === "--") {
      promptParts.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith("--") || token === "-") {
      if (/^-[A-Za-z]/.test(token)) return { ok: false, error: unknownFlag(token, AGENT_FLAGS).message };
      promptParts.push(token);
      continue;
    }
    const equals = token.indexOf("=");
    const name = equals === -1 ? token : token.slice(0, equals);
    if ((SWITCH_FLAGS as readonly string[]).includes(name)) {
      if (equals !== -1) return { ok: false, error: `${name} takes no value` };
      if (name === "--help") args.help = true;
      else if (name === "--read-only") args.readOnly = true;
      else if (name === "--no-stream") args.stream = false;
      else args.strict = name === "--strict";
      continue;
    }
    const key = name === "--allow" ? "allow" : VALUE_FLAGS[name];
    if (key === undefined) return { ok: false, error: unknownFlag(name, AGENT_FLAGS).message };
    let value: string | undefined;
    if (equals !== -1) {
      value = token.slice(equals + 1);
    } else {
      value = argv[i + 1];
      i += 1;
    }
    if (value === undefined || value === "") return { ok: false, error: `${name} needs a value` };
    if (key === "allow") {
      const names = value.split(",").map((part) => part.trim()).filter((part) => part !== "");
      if (names.length === 0) return { ok: false, error: `--allow needs a tool name (or *), got ${JSON.stringify(value)}` };
      args.allow = [...(args.allow ?? []), ...names];
      continue;
    }
    const stored = storeValue(args, key, name, value);
    if (stored !== undefined) return { ok: false, error: stored };
  }
  const prompt = promptParts.join(" ");
  if (prompt.trim() !== "") args.prompt = prompt;
  return { ok: true, args };
}

function storeValue(args: AgentArgs, key: ValueFlag, flag: string, value: string): string | undefined {
  if (key === "provider" || key === "reasoningEffort") {
    const choices = CHOICES[key];
    if (!choices.includes(value)) return `${flag} takes ${choices.join(", ")}; got ${JSON.stringify(value)}`;
    if (key === "provider") args.provider = value as ProviderName;
    else args.reasoningEffort = value as ReasoningEffort;
    return undefined;
  }
  if (!NUMBER_FLAGS.has(key)) {
    args[key as Exclude<ValueFlag, NumberFlag | ChoiceFlag>] = value;
    return undefined;
  }
  if (!/^[0-9]+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    return `${flag} needs a whole number of at least 1, got ${JSON.stringify(value)}`;
  }
  if (DURATION_FLAGS.has(key) && Number(value) > MAX_TIMER_MS) {
    return `${flag} can be at most ${MAX_TIMER_MS} ms (about 24.8 days, the longest a Node.js timer holds), got ${value}`;
  }
  args[key as NumberFlag] = Number(value);
  return undefined;
}
