/**
 * The command line of `npm run mcp`: `--schemas FILE`, `--workspace DIR`, `--tool-timeout MS`, `--help`,
 * `--max-concurrent-calls N`, and the HTTP flags (`--http [HOST:]PORT` and the flags only it takes), with
 * the agent's syntax (`--flag VALUE` or `--flag=VALUE`). The agent's flags are read by the agent's own
 * parser; this module reads the MCP-only ones and keeps out what `mcp` does not take (other flags, a
 * prompt, HTTP flags without `--http`, session flags with `--stateless`).
 */
import { parseAgentArgs } from "../cli/parse-agent-args.js";
import { helpRequested, unknownFlag, type FlagTable } from "../shared/command-flags.js";
import { commandLine, compiled } from "../shared/package-layout.js";
import { MAX_TIMER_MS } from "../shared/timer-limit.js";
import { parseListenAddress, type ListenAddress } from "./http/listen-address.js";
import { withoutCredentials } from "../runtime/model/url-credentials.js";

export interface HttpArgs {
  listen: ListenAddress;
  tokenFiles: string[];
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  allowOrigins: string[];
  stateless: boolean;
  maxSessions: number;
  sessionIdleMs: number;
  maxBodyBytes: number;
  graceMs: number;
}

export interface McpArgs {
  schemas?: string;
  workspace?: string;
  toolTimeoutMs?: number;
  /** Unset: 16 (`call-queue.ts`). */
  maxConcurrentCalls?: number;
  /** Present with `--http`: serve over Streamable HTTP instead of stdio. */
  http?: HttpArgs;
  help: boolean;
}

export const HTTP_DEFAULTS = { maxSessions: 100, sessionIdleMs: 30 * 60 * 1000, maxBodyBytes: 4 * 1024 * 1024, graceMs: 10_000 } as const;

const AGENT_VALUE_FLAGS = new Set(["--schemas", "--workspace", "--tool-timeout"]);
type Counted = "maxSessions" | "sessionIdleMs" | "maxBodyBytes" | "graceMs" | "maxConcurrentCalls";
const NUMBER_FLAGS: Record<string, { key: Counted; duration: boolean; min: number }> = {
  "--max-sessions": { key: "maxSessions", duration: false, min: 1 },
  "--session-idle": { key: "sessionIdleMs", duration: true, min: 1 },
  "--max-body-bytes": { key: "maxBodyBytes", duration: false, min: 1 },
  "--grace": { key: "graceMs", duration: true, min: 0 },
  "--max-concurrent-calls": { key: "maxConcurrentCalls", duration: false, min: 1 },
};
const TEXT_FLAGS = new Set(["--http", "--token-file", "--jwks-url", "--issuer", "--audience", "--allow-origin"]);
const SESSION_FLAGS = new Set(["--max-sessions", "--session-idle"]);
const HTTP_ONLY = new Set(["--token-file", "--jwks-url", "--issuer", "--audience", "--allow-origin", "--stateless", "--max-sessions", "--session-idle", "--max-body-bytes", "--grace"]);

/** Every flag of `mcp`: what an unknown flag is compared with to name the one meant. */
export const MCP_FLAGS: FlagTable = {
  ...Object.fromEntries([...AGENT_VALUE_FLAGS, ...Object.keys(NUMBER_FLAGS), ...TEXT_FLAGS].map((flag) => [flag, "value" as const])),
  "--stateless": "switch",
  "--help": "switch",
};

export const MCP_USAGE = `Usage: ${compiled ? "npx sigloop mcp" : "npm run --silent mcp --"} --workspace DIR [flags]

Serves the tools in generated/schemas.json to an MCP client over stdio (stdout carries protocol
messages only; logs go to stderr), or with --http over Streamable HTTP on /mcp.${compiled ? "" : " Use --silent: npm's own banner on stdout would corrupt the stream."}

Flags:
  --workspace DIR       the only directory tools may touch (required: clients start servers from / or ~)
  --schemas FILE        tool schemas to serve (default: generated/schemas.json of the project)
  --tool-timeout MS     how long one tool call may run, from when it starts running (default 60000)
  --max-concurrent-calls N
                        calls that run at once (default 16); later ones wait in arrival order (over
                        HTTP at most 4 x N of them, beyond that 503)
  --help, -h            this text (wherever it stands; nothing else is done)

Over HTTP (stdin is ignored):
  --http [HOST:]PORT    serve Streamable HTTP on http://HOST:PORT/mcp (HOST default 127.0.0.1, IPv6 as
                        [::1]:PORT, PORT 0 a free port; the address is printed as "listening on URL")
  --token-file FILE     bearer tokens, one per line (# comments); also $SIGLOOP_MCP_TOKEN. Without any
                        token (or JWT) only a loopback address is served
  --jwks-url URL        accept JWTs signed by a key of this JWKS (needs --issuer and --audience)
                        whose typ is at+jwt, JWT or none; exp, nbf and iat may be 30 s off
  --issuer ISS          the JWTs' required issuer (also the authorization server in the OAuth metadata)
  --audience AUD        the JWTs' required audience
  --allow-origin ORIGIN a browser origin allowed besides the server's own (repeatable, exact match)
  --stateless           no sessions: any replica answers any request (no GET stream, no list_changed)
  --max-sessions N      open sessions at most (default 100; beyond it new ones get 503)
  --session-idle MS     a session without any request, stream or call this long is ended (default 1800000)
  --max-body-bytes N    largest request body (default 4194304, 4 MB; larger gets 413)
  --grace MS            on SIGTERM, how long calls in flight may finish before they are aborted (default 10000)

  A session belongs to the token (or JWT subject) that opened it: to any other credential its id is
  unknown, and it gets 404 as for an ended session. A request body must arrive within 30 s of its
  headers, else 408 and the connection is closed. The headers have 10 s to arrive, else the same.

Exit codes: 0 stdin closed, 2 usage or setup error, 5 schemas missing or stale (run ${commandLine("gen")}),
            70 internal error (a bug in sigloop), 130 SIGINT, 141 stderr closed by its reader, 143 SIGTERM.`;

type Parsed = { ok: true; args: McpArgs } | { ok: false; error: string };

export function parseMcpArgs(argv: readonly string[]): Parsed {
  if (helpRequested(argv)) return { ok: true, args: { help: true } };
  const agentArgv: string[] = [];
  const counts: Partial<Record<Counted, number>> = {};
  const texts = new Map<string, string[]>();
  const seen = new Set<string>();
  let stateless = false;
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i] ?? "";
    if (!token.startsWith("-") || token === "--") return { ok: false, error: `${commandLine("mcp")} takes flags only, got ${JSON.stringify(token)}` };
    const equals = token.indexOf("=");
    const name = equals === -1 ? token : token.slice(0, equals);
    if (name === "--help" || AGENT_VALUE_FLAGS.has(name)) {
      agentArgv.push(token);
      if (AGENT_VALUE_FLAGS.has(name) && equals === -1 && i + 1 < argv.length) agentArgv.push(argv[(i += 1)] ?? "");
      continue;
    }
    seen.add(name);
    if (name === "--stateless") {
      if (equals !== -1) return { ok: false, error: "--stateless takes no value" };
      stateless = true;
      continue;
    }
    const numberFlag = NUMBER_FLAGS[name];
    if (numberFlag === undefined && !TEXT_FLAGS.has(name)) return { ok: false, error: unknownFlag(name, MCP_FLAGS).message };
    const value = equals !== -1 ? token.slice(equals + 1) : argv[(i += 1)];
    if (value === undefined || value === "") return { ok: false, error: `${name} needs a value` };
    if (numberFlag !== undefined) {
      const problem = wholeNumberProblem(name, value, numberFlag.min, numberFlag.duration);
      if (problem !== undefined) return { ok: false, error: problem };
      counts[numberFlag.key] = Number(value);
    } else {
      if (name !== "--allow-origin" && name !== "--token-file" && texts.has(name)) return { ok: false, error: `${name} is given twice` };
      texts.set(name, [...(texts.get(name) ?? []), value]);
    }
  }
  const parsed = parseAgentArgs(agentArgv);
  if (!parsed.ok) return parsed;
  const { schemas, workspace, toolTimeoutMs, help } = parsed.args;
  const args: McpArgs = {
    help,
    ...(counts.maxConcurrentCalls !== undefined ? { maxConcurrentCalls: counts.maxConcurrentCalls } : {}),
    ...(schemas !== undefined ? { schemas } : {}),
    ...(workspace !== undefined ? { workspace } : {}),
    ...(toolTimeoutMs !== undefined ? { toolTimeoutMs } : {}),
  };
  const listenText = texts.get("--http")?.[0];
  if (listenText === undefined) {
    const httpOnly = [...seen].find((flag) => HTTP_ONLY.has(flag));
    return httpOnly === undefined ? { ok: true, args } : { ok: false, error: `${httpOnly} is a flag of the HTTP server: add --http [HOST:]PORT` };
  }
  const listen = parseListenAddress(listenText);
  if (!listen.ok) return { ok: false, error: `--http ${listen.error}` };
  if (stateless) {
    const sessionFlag = [...seen].find((flag) => SESSION_FLAGS.has(flag));
    if (sessionFlag !== undefined) return { ok: false, error: `${sessionFlag} limits sessions, and --stateless keeps none: drop one of the two` };
  }
  const jwt = ["--jwks-url", "--issuer", "--audience"].map((flag) => texts.get(flag)?.[0]);
  const [jwksUrl, issuer, audience] = jwt;
  if (jwt.some((value) => value !== undefined) && jwt.some((value) => value === undefined)) {
    return { ok: false, error: "JWTs are checked against all three of --jwks-url, --issuer and --audience: give the three together" };
  }
  if (jwksUrl !== undefined && (!/^https?:\/\//i.test(jwksUrl) || !URL.canParse(jwksUrl))) return { ok: false, error: `--jwks-url needs an http:// or https:// URL, got ${JSON.stringify(withoutCredentials(jwksUrl))}` };
  const parsedJwksUrl = jwksUrl !== undefined ? new URL(jwksUrl) : undefined;
  if (parsedJwksUrl !== undefined && (parsedJwksUrl.username !== "" || parsedJwksUrl.password !== "")) {
    // Quoted as parsed (a raw `@` in a password is encoded there) and without its query, which may hold a key too.
    const shown = withoutCredentials(parsedJwksUrl.href).replace(/[?#][^]*$/, "");
    return { ok: false, error: `--jwks-url cannot carry a user name or password (fetch refuses such a URL, and a JWKS is public): got ${JSON.stringify(shown)}` };
  }
  for (const origin of texts.get("--allow-origin") ?? []) {
    if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+$/i.test(origin)) return { ok: false, error: `--allow-origin takes an origin as browsers send it (scheme://host[:port], no path), got ${JSON.stringify(origin)}` };
  }
  args.http = {
    listen: listen.address,
    tokenFiles: texts.get("--token-file") ?? [],
    allowOrigins: texts.get("--allow-origin") ?? [],
    stateless,
    maxSessions: counts.maxSessions ?? HTTP_DEFAULTS.maxSessions,
    sessionIdleMs: counts.sessionIdleMs ?? HTTP_DEFAULTS.sessionIdleMs,
    maxBodyBytes: counts.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes,
    graceMs: counts.graceMs ?? HTTP_DEFAULTS.graceMs,
    ...(jwksUrl !== undefined && issuer !== undefined && audience !== undefined ? { jwksUrl, issuer, audience } : {}),
  };
  return { ok: true, args };
}

function wholeNumberProblem(flag: string, value: string, min: number, duration: boolean): string | undefined {
  if (!/^[0-9]+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) return `${flag} needs a whole number of at least ${min}, got ${JSON.stringify(value)}`;
  if (duration && Number(value) > MAX_TIMER_MS) return `${flag} can be at most ${MAX_TIMER_MS} ms (about 24.8 days, the longest a Node.js timer holds), got ${value}`;
  return undefined;
}
