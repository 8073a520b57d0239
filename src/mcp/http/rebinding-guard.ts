/**
 * The DNS-rebinding checks, made before authentication: a page on another site must not reach a server
 * on this machine through the victim's browser. A present `Origin` must be one of `--allow-origin`
 * (exact match) or the server's own (`http://localhost:PORT`, `http://127.0.0.1:PORT`,
 * `http://[::1]:PORT`, the bound port); `Origin: null` never is. On a loopback bind `Host` must name the
 * bound address or `localhost`, with the port, and so must the authority of an absolute-form request
 * target (`POST http://127.0.0.1:PORT/mcp`) when there is one: a request is accepted only when every
 * host it names is this server; on other binds a load balancer sets `Host`, so neither is checked.
 * Returns why a request is refused, or undefined.
 */
import { hostWithPort, isLoopback } from "./listen-address.js";

export interface RebindingGuardOptions {
  /** The host as given to `--http` (a name such as `localhost`, or an IP). */
  host: string;
  /** The IP actually bound. */
  boundAddress: string;
  port: number;
  allowOrigins: readonly string[];
}

export function rebindingGuard(options: RebindingGuardOptions): (origin: string | undefined, host: string | undefined, targetAuthority?: string) => string | undefined {
  const { host, boundAddress, port } = options;
  const sameHost = ["localhost", "127.0.0.1", "::1"].map((name) => `http://${hostWithPort(name, port)}`);
  const origins = new Set([...options.allowOrigins, ...sameHost]);
  const hosts = isLoopback(host) || isLoopback(boundAddress) ? new Set([host, boundAddress, "localhost"].map((name) => hostWithPort(name, port).toLowerCase())) : undefined;
  return (origin, hostHeader, targetAuthority) => {
    if (origin === "null") return "a request with Origin: null (a sandboxed page or a local file) may not use this server";
    if (origin !== undefined && !origins.has(origin)) return `the Origin ${JSON.stringify(origin)} may not use this server; start it with --allow-origin ${origin} to allow it`;
    if (hosts !== undefined && (hostHeader === undefined || !hosts.has(hostHeader.toLowerCase()))) {
      return `the Host ${JSON.stringify(hostHeader ?? "")} is not this server's address; a loopback server answers ${[...hosts].join(" or ")} only`;
    }
    if (hosts !== undefined && targetAuthority !== undefined && !hosts.has(targetAuthority.toLowerCase())) {
      return `the request target names ${JSON.stringify(targetAuthority)}, not this server's address; a loopback server answers ${[...hosts].join(" or ")} only`;
    }
    return undefined;
  };
}
