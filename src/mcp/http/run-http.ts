/**
 * `sigloop mcp --http`: the HTTP mode of the command once the common checks have passed. Reads the
 * bearer tokens (`--token-file`, `$SIGLOOP_MCP_TOKEN`), refuses (exit 2) to serve a non-loopback
 * address without any token or JWT issuer, listens, only then prints `mcp: serving …` and
 * `listening on http://HOST:PORT/mcp` on stderr, and serves until SIGTERM (143) or SIGINT (130): the
 * listener closes, calls in flight get `--grace` ms to finish, then are aborted and answered as
 * interrupted, and every session ends. stdin is never read.
 */
import { EXIT } from "../../cli/report-result.js";
import type { McpServerHandle } from "../create-mcp-server.js";
import type { HttpArgs } from "../parse-mcp-args.js";
import { authenticator } from "./authenticate.js";
import { readBearerTokens } from "./bearer-tokens.js";
import { hostWithPort, isLoopback } from "./listen-address.js";
import { serveHttp } from "./serve-http.js";

export type StopSignal = "SIGINT" | "SIGTERM";

export interface HttpModeOptions {
  http: HttpArgs;
  handle: McpServerHandle;
  env: NodeJS.ProcessEnv;
  /** The directory the command was started from: a relative `--token-file` is resolved against it. */
  cwd: string;
  /** Says what is served (`mcp: serving N tools from …`): called once listening, before `listening on`. */
  announce: () => void;
  /** One line for stderr, escaped and masked, written at once. */
  log: (line: string) => void;
  /** The line a request leaves when its response has ended, escaped and masked; it may leave a little later. */
  logRequest: (line: string) => void;
  usageError: (message: string) => number;
  /** Resolves with the first stop signal. */
  stopSignal: Promise<StopSignal>;
  /** Told the secrets the log must never show. */
  addSecrets: (secrets: readonly string[]) => void;
}

const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: EXIT.interrupted, SIGTERM: 143 };

export async function runHttpMode(options: HttpModeOptions): Promise<number> {
  const { http, handle, log } = options;
  const read = readBearerTokens(http.tokenFiles, options.env.SIGLOOP_MCP_TOKEN, options.cwd);
  if (!read.ok) return options.usageError(read.error);
  options.addSecrets(read.tokens);
  const jwt = http.jwksUrl !== undefined && http.issuer !== undefined && http.audience !== undefined ? { jwksUrl: http.jwksUrl, issuer: http.issuer, audience: http.audience } : undefined;
  const protectedServer = read.tokens.length > 0 || jwt !== undefined;
  if (!protectedServer && !isLoopback(http.listen.host)) {
    return options.usageError(
      `--http ${hostWithPort(http.listen.host, http.listen.port)} is reachable from other machines, and no token is configured, so anyone who reaches it could run the tools: give --token-file FILE, $SIGLOOP_MCP_TOKEN or --jwks-url with --issuer and --audience, or listen on 127.0.0.1`,
    );
  }
  const served = await serveHttp({
    handle,
    listen: http.listen,
    allowOrigins: http.allowOrigins,
    stateless: http.stateless,
    maxSessions: http.maxSessions,
    sessionIdleMs: http.sessionIdleMs,
    maxBodyBytes: http.maxBodyBytes,
    log,
    logRequest: options.logRequest,
    ...(protectedServer ? { authenticate: authenticator(read.tokens, jwt, log) } : {}),
    ...(jwt !== undefined ? { oauth: { issuer: jwt.issuer, audience: jwt.audience } } : {}),
  });
  if (!served.ok) return options.usageError(served.error);
  options.announce();
  log(`listening on ${served.service.url}`);
  const signal = await options.stopSignal;
  log(`mcp: ${signal}: no new connections; calls in flight have ${http.graceMs} ms to finish`);
  await served.service.stop(http.graceMs);
  return SIGNAL_EXIT[signal];
}
