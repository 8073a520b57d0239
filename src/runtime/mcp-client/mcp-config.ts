/**
 * The `--mcp FILE` config: `{ "mcpServers": { "<name>": <server> } }`, the format Claude Desktop, Claude
 * Code and Cursor read. A stdio server is `{ command, args?, env?, cwd? }` (`type` absent or `"stdio"`), a
 * remote one `{ type: "http", url, headers? }` (a `url` without `type` is http too). `${VAR}` and
 * `${VAR:-default}` expand in command, args, env values, cwd, url and header values. Every problem is an
 * error naming the file, the server and what is wrong, found before any server starts; keys sigloop does
 * not use are warnings (`disabled: true` skips the server), other top-level keys are ignored.
 */
import path from "node:path";
import { isHttpUrl } from "../../shared/http-url.js";
import { NotRegularFileError, readRegularFile } from "../workspace/regular-file.js";
import { expandVariables } from "./expand-variables.js";

export interface StdioServerConfig {
  name: string;
  type: "stdio";
  command: string;
  args: string[];
  /** The server's own variables, added to the SDK's default environment. */
  env: Record<string, string>;
  /** Absolute: a relative `cwd` is resolved against the config file's directory. */
  cwd?: string;
}

export interface HttpServerConfig {
  name: string;
  type: "http";
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

export interface McpConfig {
  file: string;
  /** In the file's order; disabled servers left out. */
  servers: McpServerConfig[];
  /** One line each, for stderr: keys of a server that sigloop does not use. */
  warnings: string[];
}

export type McpConfigResult = { ok: true; config: McpConfig } | { ok: false; error: string };

const STDIO_KEYS = new Set(["type", "command", "args", "env", "cwd", "disabled"]);
const HTTP_KEYS = new Set(["type", "url", "headers", "disabled"]);

/** Reads and checks FILE; `file` is named in every message as given. Never throws. */
export function readMcpConfig(file: string, env: NodeJS.ProcessEnv): McpConfigResult {
  let text: string;
  try {
    text = readRegularFile(file);
  } catch (error) {
    // Worded as --transcript, --resume and --schemas word it: `mcp.json is a directory, not a regular file`.
    if (error instanceof NotRegularFileError) return { ok: false, error: `${error.message}; give the path of the JSON file with "mcpServers"` };
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "it does not exist" : code !== undefined ? `it could not be read (${code})` : (error as Error).message;
    return { ok: false, error: `${file}: ${why}` };
  }
  return parseMcpConfig(file, text, env);
}

export function parseMcpConfig(file: string, text: string, env: NodeJS.ProcessEnv): McpConfigResult {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    return { ok: false, error: `${file}: not valid JSON (${(error as Error).message})` };
  }
  if (!isObject(value) || !isObject(value.mcpServers)) {
    return { ok: false, error: `${file}: no "mcpServers" object; write { "mcpServers": { "<name>": { "command": "…" } } }` };
  }
  const servers: McpServerConfig[] = [];
  const warnings: string[] = [];
  const baseDir = path.dirname(path.resolve(file));
  for (const [name, server] of Object.entries(value.mcpServers)) {
    const fail = (problem: string): McpConfigResult => ({ ok: false, error: `${file}: server ${JSON.stringify(name)}: ${problem}` });
    if (!isObject(server)) return fail("is not an object");
    if (server.disabled === true) continue;
    const parsed = parseServer(name, server, env, baseDir);
    if (!parsed.ok) return fail(parsed.error);
    const used = parsed.server.type === "stdio" ? STDIO_KEYS : HTTP_KEYS;
    for (const key of Object.keys(server)) {
      if (!used.has(key)) warnings.push(`warning: ${file}: server ${JSON.stringify(name)}: ${JSON.stringify(key)} is not used by sigloop and is ignored`);
    }
    servers.push(parsed.server);
  }
  return { ok: true, config: { file, servers, warnings } };
}

type ServerResult = { ok: true; server: McpServerConfig } | { ok: false; error: string };

function parseServer(name: string, server: Record<string, unknown>, env: NodeJS.ProcessEnv, baseDir: string): ServerResult {
  const { type } = server;
  if (type === "sse") {
    return { ok: false, error: `"type": "sse" (the older HTTP+SSE transport) is not supported; use the server's Streamable HTTP endpoint with "type": "http"` };
  }
  if (type !== undefined && type !== "stdio" && type !== "http") return { ok: false, error: `unknown "type" ${JSON.stringify(type)}: use "stdio" or "http"` };
  const hasCommand = server.command !== undefined;
  const hasUrl = server.url !== undefined;
  if (!hasCommand && !hasUrl) return { ok: false, error: `has neither "command" (a program to start) nor "url" (a Streamable HTTP server)` };
  const kind = type ?? (hasCommand ? "stdio" : "http");
  if (kind === "stdio" && hasUrl) return { ok: false, error: `has "url", but is a stdio server ("command"); remove one of them` };
  if (kind === "http" && hasCommand) return { ok: false, error: `has "command", but is an http server ("url"); remove one of them` };
  const expand = (value: unknown, where: string): { ok: true; value: string } | { ok: false; error: string } => {
    if (typeof value !== "string") return { ok: false, error: `${where} must be a string` };
    const expanded = expandVariables(value, env);
    if (expanded.ok) return expanded;
    return { ok: false, error: `\${${expanded.variable}} in ${where} is not set and has no default (set it, or write \${${expanded.variable}:-default})` };
  };
  const expandMap = (value: unknown, key: string): { ok: true; value: Record<string, string> } | { ok: false; error: string } => {
    if (value === undefined) return { ok: true, value: {} };
    if (!isObject(value)) return { ok: false, error: `"${key}" must be an object of strings` };
    const out: Record<string, string> = {};
    for (const [entry, text] of Object.entries(value)) {
      const expanded = expand(text, `${key}.${entry}`);
      if (!expanded.ok) return expanded;
      out[entry] = expanded.value;
    }
    return { ok: true, value: out };
  };

  if (kind === "http") {
    const url = expand(server.url, `"url"`);
    if (!url.ok) return url;
    if (!isHttpUrl(url.value)) return { ok: false, error: `"url" must be an http(s) URL, got ${JSON.stringify(url.value)}` };
    const headers = expandMap(server.headers, "headers");
    if (!headers.ok) return headers;
    return { ok: true, server: { name, type: "http", url: url.value, headers: headers.value } };
  }
  const command = expand(server.command, `"command"`);
  if (!command.ok) return command;
  if (command.value === "") return { ok: false, error: `"command" is empty` };
  const rawArgs = server.args ?? [];
  if (!Array.isArray(rawArgs)) return { ok: false, error: `"args" must be an array of strings` };
  const args: string[] = [];
  for (const [index, arg] of rawArgs.entries()) {
    const expanded = expand(arg, `args[${index}]`);
    if (!expanded.ok) return expanded;
    args.push(expanded.value);
  }
  const serverEnv = expandMap(server.env, "env");
  if (!serverEnv.ok) return serverEnv;
  let cwd: string | undefined;
  if (server.cwd !== undefined) {
    const expanded = expand(server.cwd, `"cwd"`);
    if (!expanded.ok) return expanded;
    cwd = path.resolve(baseDir, expanded.value);
  }
  return { ok: true, server: { name, type: "stdio", command: command.value, args, env: serverEnv.value, ...(cwd !== undefined ? { cwd } : {}) } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
