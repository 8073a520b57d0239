/**
 * `--http [HOST:]PORT`: where the HTTP server listens. HOST defaults to 127.0.0.1; an IPv6 address is
 * written in brackets (`[::1]:8080`), as in a URL; PORT 0 asks the system for a free port. `isLoopback`
 * says whether an address only this machine can reach (127.0.0.0/8, ::1, localhost), the only kind
 * served without tokens.
 */
import { isIP } from "node:net";

export interface ListenAddress {
  /** As `listen` takes it: no brackets. */
  host: string;
  port: number;
}

export function parseListenAddress(text: string): { ok: true; address: ListenAddress } | { ok: false; error: string } {
  const match = /^(?:(\[[^\]]*\]|[^:[\]]*):)?([0-9]+)$/.exec(text);
  if (match === null) return { ok: false, error: `takes [HOST:]PORT (8080, 127.0.0.1:8080, [::1]:8080, 0.0.0.0:8080), got ${JSON.stringify(text)}` };
  const written = match[1] ?? "127.0.0.1";
  const host = written.startsWith("[") ? written.slice(1, -1) : written;
  const port = Number(match[2]);
  if (port > 65535) return { ok: false, error: `port ${port} is over 65535` };
  if (host === "") return { ok: false, error: `has an empty host in ${JSON.stringify(text)}; leave it out for 127.0.0.1` };
  if (written.startsWith("[") !== (isIP(host) === 6)) {
    return { ok: false, error: written.startsWith("[") ? `[${host}] is not an IPv6 address` : `an IPv6 address goes in brackets: [${host}]:${port}` };
  }
  if (isIP(host) === 0 && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(host)) return { ok: false, error: `${JSON.stringify(host)} is not a host name or IP address` };
  return { ok: true, address: { host, port } };
}

export function isLoopback(host: string): boolean {
  const lower = host.toLowerCase();
  return lower === "localhost" || lower === "::1" || /^127(\.[0-9]{1,3}){3}$/.test(lower) || /^::ffff:127(\.[0-9]{1,3}){3}$/.test(lower);
}

/** `host:port` as it appears in a URL and a `Host` header (IPv6 in brackets). */
export function hostWithPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
