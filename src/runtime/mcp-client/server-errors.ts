/**
 * A server connection's errors in words. Why a server did not start, for the one stderr line that leaves
 * it out: a missing command or `cwd` folder (spawn says ENOENT for both), the connection's error under
 * fetch's bare "fetch failed", the HTTP status an http server answered with and what to check for the
 * usual ones.
 */
import { statSync } from "node:fs";
import { STATUS_CODES } from "node:http";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "./mcp-config.js";

export function startFailure(error: unknown, config: McpServerConfig): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // spawn says ENOENT (ENOTDIR) for a missing cwd as for a missing command: the cwd is checked to tell them apart.
  if (config.type === "stdio" && config.cwd !== undefined && (code === "ENOENT" || code === "ENOTDIR")) {
    const problem = folderProblem(config.cwd);
    if (problem !== undefined) return `its "cwd" ${problem}`;
  }
  if (code === "ENOENT") return "its command was not found (ENOENT)";
  if (code === "EACCES") return "its command cannot be run (EACCES)";
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) return "it closed the connection before it was ready";
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 100) return httpStatusProblem(error.code, error.message);
  const connection = connectionProblem(error);
  if (connection !== undefined) return connection;
  return describeError(error);
}

/** Why `dir` is no folder to start in, e.g. `/srv/db does not exist (ENOENT)`; undefined when it is one. */
function folderProblem(dir: string): string | undefined {
  try {
    return statSync(dir).isDirectory() ? undefined : `${dir} is a file, not a folder (ENOTDIR)`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return `folder ${dir} does not exist (ENOENT)`;
    if (code === "ENOTDIR") return `${dir} goes through a file as if it were a folder (ENOTDIR)`;
    return undefined;
  }
}

/**
 * An http server that answered the initialize request with an error status: the status in words, what
 * it said (bodies can be whole HTML pages: one short line), and what to check for the usual ones.
 */
function httpStatusProblem(status: number, message: string): string {
  const said = oneLine(message.replace(/^Streamable HTTP error: Error POSTing to endpoint: ?/, ""));
  const statusText = STATUS_CODES[status];
  const hint = status === 401 || status === 403 ? `; check its "headers" (the credentials it takes)` : status === 404 ? `; check its "url": it must be the server's MCP endpoint` : "";
  return `it answered HTTP ${status}${statusText !== undefined ? ` ${statusText}` : ""}${said !== "" ? ` (${said})` : ""}${hint}`;
}

/** Words (and what to check) for the connection error under fetch's bare "fetch failed". */
const CONNECTION_PROBLEMS: Readonly<Record<string, { what: string; check?: string }>> = {
  ECONNREFUSED: { what: "connection refused", check: `check that the server is running at its "url"` },
  ECONNRESET: { what: "the connection was reset" },
  UND_ERR_SOCKET: { what: "the connection was closed" },
  ENOTFOUND: { what: "its host was not found", check: `check its "url"` },
  EAI_AGAIN: { what: "its host name could not be looked up (DNS)" },
  ETIMEDOUT: { what: "connecting timed out" },
  UND_ERR_CONNECT_TIMEOUT: { what: "connecting timed out" },
  EHOSTUNREACH: { what: "its host cannot be reached" },
  ENETUNREACH: { what: "its network cannot be reached" },
};

/** E.g. `it could not be reached: connection refused (ECONNREFUSED); …`; undefined for an error that is not fetch's. */
function connectionProblem(error: unknown): string | undefined {
  if (!(error instanceof TypeError) || error.message !== "fetch failed") return undefined;
  const seen = new Set<unknown>();
  let current: unknown = error.cause;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === "string") {
      const words = CONNECTION_PROBLEMS[code] ?? (UNTRUSTED_CERTIFICATE.test(code) ? { what: "its TLS certificate is not trusted" } : undefined);
      if (words === undefined) return `it could not be reached (${code})`;
      return `it could not be reached: ${words.what} (${code})${words.check !== undefined ? `; ${words.check}` : ""}`;
    }
    // Both addresses of `localhost` refused: an AggregateError, whose code Node sets, or else its first error.
    current = current.cause ?? (current instanceof AggregateError ? (current.errors[0] as unknown) : undefined);
  }
  return `it could not be reached (${current instanceof Error ? current.message : "fetch failed"})`;
}

/** OpenSSL's verification failures as Node reports them, e.g. `SELF_SIGNED_CERT_IN_CHAIN`. */
const UNTRUSTED_CERTIFICATE = /CERT|UNABLE_TO_VERIFY|SELF_SIGNED/;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** An error's own message, for the errors that need no more words. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
