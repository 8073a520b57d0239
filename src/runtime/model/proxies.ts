/**
 * Proxies for the model transport: which proxy variables apply (`https_proxy` / `HTTPS_PROXY`,
 * `http_proxy` / `HTTP_PROXY`, `no_proxy` / `NO_PROXY`; the lower-case one wins when both are set, as curl
 * and undici read them), and what a failure that came from the proxy says. The routing itself (NO_PROXY
 * matching, CONNECT tunnels for https, forwarding for http, `Proxy-Authorization` from the URL's user and
 * password) is undici's `EnvHttpProxyAgent`, given the values read here so that messages can name them.
 * A value that is not a proxy URL is said before any request is sent (`malformedProxy`), not left to fail
 * each request as an invalid URL.
 */
import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import type { Dispatcher } from "undici";
import type { IncomingHttpHeaders } from "undici/types/header.js";
import { MASK } from "./key-mask.js";
import { TransportRefusal, urlWithoutCredentials } from "./transport-refusal.js";

type Env = Record<string, string | undefined>;

interface ProxyVariable {
  /** The variable's name as set, e.g. `https_proxy`. */
  name: string;
  value: string;
}

/** The lower-case variable when it is set (even empty, which turns the proxy off), else the upper-case one. */
function variable(env: Env, upper: string): ProxyVariable | undefined {
  const lower = upper.toLowerCase();
  if (env[lower] !== undefined) return { name: lower, value: env[lower] };
  return env[upper] !== undefined ? { name: upper, value: env[upper] } : undefined;
}

/** The options of undici's `EnvHttpProxyAgent`, read from `env` by the rule above. */
export function proxySettings(env: Env): { httpProxy?: string; httpsProxy?: string; noProxy: string } {
  const http = variable(env, "HTTP_PROXY");
  const https = variable(env, "HTTPS_PROXY");
  return {
    ...(http !== undefined ? { httpProxy: http.value } : {}),
    ...(https !== undefined ? { httpsProxy: https.value } : {}),
    noProxy: variable(env, "NO_PROXY")?.value ?? "",
  };
}

/**
 * The schemes undici's `ProxyAgent` speaks: http and https (forwarding and `CONNECT`), and SOCKS5 under
 * either of its names (experimental in undici, but it works, so it is kept).
 */
const PROXY_SCHEMES = new Set(["http:", "https:", "socks5:", "socks:"]);

/** The form a proxy variable's value takes, as the messages below say it. */
const PROXY_FORM = "http://host:port (http://user:password@host:port for one that asks for credentials)";

/** A proxy variable whose value is not a usable proxy URL, said for the user; no credential in any of it. */
export interface MalformedProxy {
  /** The variable's name as set, e.g. `https_proxy`. */
  variable: string;
  /** e.g. `HTTPS_PROXY is "127.0.0.1:9", which has no scheme (http:// is not assumed)`. */
  problem: string;
  /** The whole setup error: the problem, the form expected and what to do. */
  message: string;
  /** What to do, for a message that says the problem itself. */
  hint: string;
}

export type ProxyValue = { ok: true; url: URL } | { ok: false; refusal: MalformedProxy };

/**
 * `value` of the variable `name` as a proxy URL: one undici can use (a scheme of `PROXY_SCHEMES`, a host;
 * for http and https nothing after the port, which undici refuses), else the refusal to print. Never
 * throws. A value without a scheme (`127.0.0.1:9`, `proxy.corp:8080`) is refused, not taken as http as
 * curl takes it: the guess may send the traffic, credentials and all, somewhere the user did not mean,
 * and other programs reading the same variable read such a value otherwise (docs/model-client.md).
 * An empty value means no proxy: callers skip it (here it is refused, as it names no host).
 */
export function parseProxyValue(name: string, value: string): ProxyValue {
  const url = parsedURL(value);
  if (url !== undefined && PROXY_SCHEMES.has(url.protocol) && url.hostname !== "") {
    const extra = (url.protocol === "http:" || url.protocol === "https:") && (url.pathname !== "/" || url.search !== "" || url.hash !== "");
    if (!extra) return { ok: true, url };
  }
  // `host:port` parses as a URL whose scheme is the host: a scheme counts when `//` follows it, or it is one spoken.
  const lead = /^\s*([a-z][a-z0-9+.-]*):(\/\/)?/i.exec(value);
  const named = lead?.[1]?.toLowerCase();
  const scheme = named !== undefined && (lead?.[2] !== undefined || PROXY_SCHEMES.has(`${named}:`)) ? named : undefined;
  const why =
    scheme === undefined
      ? "which has no scheme (http:// is not assumed)"
      : !PROXY_SCHEMES.has(`${scheme}:`)
        ? `whose scheme ${scheme}:// is not one sigloop speaks (http://, https://, socks5://)`
        : url === undefined || url.hostname === ""
          ? "which is not a valid URL with a host"
          : "which has a path, query or fragment after the host (a proxy URL has none)";
  const problem = `${name} is ${JSON.stringify(shownProxyValue(value))}, ${why}`;
  return {
    ok: false,
    refusal: {
      variable: name,
      problem,
      message: `${problem}: expected a proxy URL such as ${PROXY_FORM}. Fix ${name} or unset it.`,
      hint: `Set ${name} to a proxy URL such as ${PROXY_FORM}, or unset it.`,
    },
  };
}

/**
 * The first proxy variable read (the ones `proxySettings` gives undici, both of which undici sets up
 * whatever the endpoint) whose value is not a usable proxy URL; an empty one is no proxy, and fine.
 */
export function malformedProxy(env: Env): MalformedProxy | undefined {
  for (const upper of ["HTTPS_PROXY", "HTTP_PROXY"]) {
    const read = variable(env, upper);
    if (read === undefined || read.value === "") continue;
    const parsed = parseProxyValue(read.name, read.value);
    if (!parsed.ok) return parsed.refusal;
  }
  return undefined;
}

/**
 * A proxy variable's value as it may be printed: everything before its last `@` (after a leading
 * `scheme://`) becomes `***`. The last `@`, not the URL's own user-info, since the value may not parse
 * as a URL at all, and a password with an unencoded `/` or `@` in it must not show either.
 */
export function shownProxyValue(value: string): string {
  const at = value.lastIndexOf("@");
  if (at < 0) return value;
  const start = /^\s*[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0].length ?? 0;
  return at < start ? value : `${value.slice(0, start)}${MASK}${value.slice(at)}`;
}

/** How a proxy is named in messages: scheme, host and port (a socks URL's `origin` is `null`). */
function proxyOrigin(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/**
 * The proxy a request to `target` is sent through unless NO_PROXY exempts it, as undici chooses: an https
 * target whose own variable is unset or empty uses the http one.
 */
function proxyFor(target: URL, env: Env): { variable: ProxyVariable; url: URL } | undefined {
  const https = target.protocol === "https:" ? variable(env, "HTTPS_PROXY") : undefined;
  const chosen = https !== undefined && https.value !== "" ? https : variable(env, "HTTP_PROXY");
  if (chosen === undefined || chosen.value === "") return undefined;
  const url = parsedURL(chosen.value);
  return url !== undefined ? { variable: chosen, url } : undefined;
}

const PROXY_AUTH = /Proxy Authentication Required \(407\)|^Proxy response \(407\)/;
const TUNNEL_REFUSED = /^Proxy response \((\d+)\) !== 200 when HTTP Tunneling/;
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  ECONNRESET: "connection reset",
  UND_ERR_PRX_CONN: "the connection broke while the tunnel was opened",
  UND_ERR_PRX_TLS: "its TLS certificate does not match its name",
};

/**
 * A failure before any response, said as the proxy's when it was the proxy's: it refused the credentials
 * (407), refused the tunnel, or could not be reached. `undefined` when it was not (no proxy for the target,
 * or the failure is the endpoint's own).
 */
export function proxyFailure(error: Error, target: URL, env: Env = process.env): TransportRefusal | undefined {
  const proxy = proxyFor(target, env);
  if (proxy === undefined) return undefined;
  // The origin alone: never the URL's user or password.
  const where = `the proxy ${proxyOrigin(proxy.url)} (${proxy.variable.name})`;
  const Where = `The proxy ${proxyOrigin(proxy.url)} (${proxy.variable.name})`;
  const refusal = (what: string, hint: string) => new TransportRefusal(`through ${where}: ${what}`, hint, { cause: error });
  if (PROXY_AUTH.test(error.message)) {
    const credentials = proxy.url.username !== "" ? "refused the credentials" : "asks for credentials";
    return refusal(
      `the proxy ${credentials} (407 Proxy Authentication Required)`,
      `${Where} ${credentials}: set the user and password in ${proxy.variable.name} (http://user:password@host:port, percent-encoded).`,
    );
  }
  const tunnel = TUNNEL_REFUSED.exec(error.message);
  if (tunnel !== null) {
    return refusal(
      `the proxy refused to open a tunnel to ${target.host} (HTTP ${tunnel[1]})`,
      `${Where} does not let requests through to ${target.host}: ask its administrator, or add the host to NO_PROXY if it is reachable directly.`,
    );
  }
  const cause = socketFailure(error);
  if (cause !== undefined && fromProxy(cause.error, proxy.url)) {
    return refusal(
      `the proxy cannot be reached (${cause.what})`,
      `${Where} cannot be reached (${cause.what}): check that it is running and that ${proxy.variable.name} names it, or add the endpoint's host to NO_PROXY.`,
    );
  }
  return undefined;
}

type SocketError = Error & { code?: unknown; port?: unknown; address?: unknown; hostname?: unknown };

function socketFailure(error: Error): { error: SocketError; what: string } | undefined {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const code = (current as SocketError).code;
    if (typeof code === "string" && Object.hasOwn(UNREACHABLE, code)) return { error: current, what: UNREACHABLE[code]! };
  }
  return undefined;
}

/** A proxy's port when its URL gives none, as undici connects to it. */
const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443, "socks5:": 1080, "socks:": 1080 };

/**
 * Whether a socket error was the proxy's: undici gives no other sign, so the address it names is compared
 * with the proxy's (a connect timeout names it in its message).
 */
function fromProxy(error: SocketError, proxy: URL): boolean {
  const port = Number(proxy.port || DEFAULT_PORTS[proxy.protocol] || 80);
  const host = proxy.hostname.replace(/^\[(.*)\]$/, "$1");
  if (error.code === "UND_ERR_CONNECT_TIMEOUT") return error.message.includes(`${host}:${port}`);
  if (error.code === "ENOTFOUND" || error.code === "EAI_AGAIN") return error.hostname === host;
  if (error.code === "UND_ERR_PRX_CONN" || error.code === "UND_ERR_PRX_TLS") return true;
  if (error.port === undefined) return false;
  // A proxy named by host name is compared by port only: the error names the address it resolved to.
  return Number(error.port) === port && (isIP(host) === 0 || error.address === host);
}

const REDIRECTS = new Set([300, 301, 302, 303, 307, 308]);

/**
 * An undici interceptor, placed under the redirect one: a redirect to a URL that holds a user name or
 * password fails the request instead of being followed. Followed, the credentials would either be dropped
 * (undici does not send them) or, sent, go to a host the user never named; neither is what was asked.
 */
export const refuseRedirectsWithCredentials: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) =>
  dispatch(options, new CredentialRedirectGuard(handler, new URL(options.path, options.origin)));

class CredentialRedirectGuard implements Dispatcher.DispatchHandler {
  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly from: URL,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.handler.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders, socket: Duplex): void {
    this.handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders, statusMessage?: string): void {
    const location = headers.location;
    const to = REDIRECTS.has(statusCode) && typeof location === "string" ? parsedURL(location, this.from) : undefined;
    if (to !== undefined && (to.username !== "" || to.password !== "")) {
      controller.abort(
        new TransportRefusal(
          `because it redirected to ${urlWithoutCredentials(to)}, a URL with credentials in it, which is not followed`,
          `Set OPENAI_BASE_URL to the API root at ${to.origin} itself if that is the endpoint meant (a key goes in OPENAI_API_KEY, not in a URL).`,
        ),
      );
      return;
    }
    this.handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.handler.onResponseError?.(controller, error);
  }
}

function parsedURL(text: string, base?: URL): URL | undefined {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
}
