/**
 * What a request line's target names: the path (without the query) and, for the absolute form
 * `http://127.0.0.1:8080/mcp` (RFC 9112 §3.2.2, which some proxies send to an origin server), the
 * authority it names. The scheme is matched case-insensitively, as URI schemes are; the authority form
 * (`CONNECT`) and the asterisk form (`OPTIONS *`) are no path of this server's and are passed on as they
 * are. `originForm` is the same target as `/path?query`, as the SDK's transport is given it.
 */

export interface RequestTarget {
  path: string;
  /** The host (and port) an absolute-form target names; undefined for the origin form. */
  authority?: string;
  originForm: string;
}

/** The path keeps a `#` and what follows, as the origin form's does (no target may have one): `http://h/mcp#x` is 404 as `/mcp#x` is. */
const ABSOLUTE = /^https?:\/\/([^/?#]*)([^?]*)(\?.*)?/i;

export function requestTarget(url: string): RequestTarget {
  const absolute = ABSOLUTE.exec(url);
  if (absolute === null) return { path: url.split("?")[0] ?? "", originForm: url };
  const [, authority = "", path = "", query = ""] = absolute;
  const originPath = path === "" ? "/" : path;
  return { path: originPath, authority, originForm: `${originPath}${query}` };
}
