/**
 * Proxies for the model transport: which proxy variables apply (`https_proxy` / `HTTPS_PROXY`,
 * `http_proxy` / `HTTP_PROXY`, `no_proxy` / `NO_PROXY`; the lower-case one wins when both are set, as curl
 * and undici read them), and what a failure that came from the proxy says. The routing itself (NO_PROXY
 * matching, CONNECT tunnels for https, forwarding for http, `Proxy-Authorization` from the URL's user and
 * password) is undici's `EnvHttpProxyAgent`, given the values read here so that messages can name them.
 */
import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import type { Dispatcher } from "undici";
import type { IncomingHttpHeaders } from "undici/types/header.js";
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
 * The proxy a request to `target` is sent through unless NO_PROXY exempts it, as undici chooses: an https
 * target whose own variable is unset or empty uses the http one.
 */
function proxyFor(target: URL, env: Env): { variable: ProxyVariable; url: URL } | undefined {
  const https = target.protocol === "https:" ? variable(env, "HTTPS_PROXY") : undefined;
  const chosen = https !== undefined && https.value !== "" ? https : variable(env, "HTTP_PROXY");
  if (chosen === undefined || chosen.value === "") return undefined;
  try {
    return { variable: chosen, url: new URL(chosen.value) };
  } catch {
    return undefined;
  }
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
  const where = `the proxy ${proxy.url.origin} (${proxy.variable.name})`;
  const Where = `The proxy ${proxy.url.origin} (${proxy.variable.name})`;
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

/**
 * Whether a socket error was the proxy's: undici gives no other sign, so the address it names is compared
 * with the proxy's (a connect timeout names it in its message).
 */
function fromProxy(error: SocketError, proxy: URL): boolean {
  const port = Number(proxy.port || (proxy.protocol === "https:" ? 443 : 80));
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

function parsedURL(text: string, base: URL): URL | undefined {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
}
