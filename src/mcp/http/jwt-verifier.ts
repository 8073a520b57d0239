/**
 * JWTs from an outside authorization server, checked with `jose`: the signature against a key of the
 * JWKS at `--jwks-url` (fetched on first use, cached, fetched again for an unknown key id), the expiry
 * (required: a JWT access token without `exp` is refused, RFC 9068), the not-before and issued-at times
 * (all three with `CLOCK_SKEW_S` of allowance, for replicas whose clocks differ a little from the issuer's),
 * the issuer and the audience, and the `typ` header: an access token's (`at+jwt`, RFC 9068), the generic
 * `JWT`, or none (what many issuers send); any other type is a token made for something else (an ID
 * token, a logout token, …) and is refused with a reason the client is told. Any other failure is one
 * answer: not authorized. A JWKS that cannot be used (down, not 200, not JSON, no key set, no keys) is
 * also said on stderr, since no JWT can pass until it can: without the
 * token, with the URL as `urlWithoutCredentials` prints it (no user-info, no query), each distinct problem
 * once, then again at most once a minute while it lasts (a JWT accepted starts afresh). After a fetch
 * fails the JWKS is not asked again for `RETRY_MS`: JWTs in between are refused with the same problem, so
 * a client sending JWT-shaped junk cannot make the server send one request to the JWKS per request of its
 * own. A token whose key id the JWKS (with keys) does not hold is the client's problem, and is only
 * refused. A JWT that verifies is answered with who it is for: `sub` (kept across token refreshes), or,
 * without one, the token itself.
 */
import { STATUS_CODES } from "node:http";
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload } from "jose";
import { urlWithoutCredentials } from "../../runtime/model/transport-refusal.js";

export interface JwtSettings {
  jwksUrl: string;
  issuer: string;
  audience: string;
}

/** A problem already logged is logged again after this long, if it still lasts. */
const REPEAT_MS = 60_000;
/** jose's default time limit for fetching the JWKS. */
const JWKS_TIMEOUT_MS = 5_000;
/** After a failed fetch, how long the JWKS is left alone. */
export const RETRY_MS = 1_000;

/** What is wrong with the JWKS's answer, found before jose reads it. */
class JwksProblem extends Error {}

/** How far `exp`, `nbf` and `iat` may be off the server's clock, in seconds (jose's `clockTolerance`). */
export const CLOCK_SKEW_S = 30;

/** Who a verified JWT is for, or that it is refused: with a `reason` when the client should be told why. */
export type JwtOutcome = { ok: true; subject: string } | { ok: false; reason?: string };

export type JwtVerifier = (token: string) => Promise<JwtOutcome>;

export function jwtVerifier(settings: JwtSettings, log: (line: string) => void, now: () => number = Date.now): JwtVerifier {
  const url = new URL(settings.jwksUrl);
  const shown = urlWithoutCredentials(url);
  const keys = createRemoteJWKSet(url, { timeoutDuration: JWKS_TIMEOUT_MS, [customFetch]: retryingAfter(RETRY_MS, now) });
  const logged = new Map<string, number>();
  return async (token) => {
    // Three dot-separated parts, or it is no JWT (a static token that did not match): no JWKS fetch.
    if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) return { ok: false };
    const at = now();
    try {
      const verified = await jwtVerify(token, keys, { issuer: settings.issuer, audience: settings.audience, requiredClaims: ["exp"], clockTolerance: CLOCK_SKEW_S, currentDate: new Date(at) });
      logged.clear();
      return accessTokenOutcome(token, verified.payload, verified.protectedHeader.typ, at);
    } catch (error) {
      const problem = jwksProblem(error)?.split(url.href).join(shown);
      if (problem !== undefined) {
        const last = logged.get(problem);
        if (last === undefined || now() - last >= REPEAT_MS) {
          logged.set(problem, now());
          log(`mcp: cannot use the JWKS at ${shown} (${problem}); JWTs are refused until it answers with keys (--jwks-url)`);
        }
      }
      return { ok: false };
    }
  };
}

/** What jose leaves unchecked of a JWT whose signature and claims verified: `iat` in the future (jose checks it only with a maximum age) and `typ`. */
function accessTokenOutcome(token: string, payload: JWTPayload, typ: unknown, nowMs: number): JwtOutcome {
  if (typeof payload.iat === "number" && payload.iat > Math.floor(nowMs / 1000) + CLOCK_SKEW_S) return { ok: false };
  const reason = typProblem(typ);
  if (reason !== undefined) return { ok: false, reason };
  return { ok: true, subject: typeof payload.sub === "string" ? `sub:${payload.sub}` : `token:${token}` };
}

/**
 * Why a `typ` is not an access token's, or undefined when it is one this server takes: `at+jwt`, `JWT`,
 * either with `application/`, in any case (RFC 7515 §4.1.9), or none. The reason names the type only when
 * it is plainly a media type, since it is sent back inside a quoted header parameter.
 */
function typProblem(typ: unknown): string | undefined {
  if (typ === undefined) return undefined;
  const kind = typeof typ === "string" ? typ.toLowerCase().replace(/^application\//, "") : undefined;
  if (kind === "at+jwt" || kind === "jwt") return undefined;
  const named = typeof typ === "string" && /^[\w.+/-]{1,64}$/.test(typ) ? `the JWT's typ ${typ}` : "the JWT's typ";
  return `${named} is not that of an access token; send an access token (typ at+jwt, JWT or none)`;
}

/** `checkedFetch`, not called again within `retryMs` of a failure: the failure is given again instead. */
function retryingAfter(retryMs: number, now: () => number): (input: string, init: RequestInit) => Promise<Response> {
  let failed: { at: number; error: unknown } | undefined;
  return async (input, init) => {
    if (failed !== undefined && now() - failed.at < retryMs) throw failed.error;
    try {
      const response = await checkedFetch(input, init);
      failed = undefined;
      return response;
    } catch (error) {
      failed = { at: now(), error };
      throw error;
    }
  };
}

/**
 * `fetch` for jose, which says only "Expected 200 OK" or "Failed to parse as JSON": the answer is checked
 * here, so the log can say which status, and that a set without keys is no set to verify with.
 */
async function checkedFetch(input: string, init: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    const status = `${response.status} ${STATUS_CODES[response.status] ?? ""}`.trim();
    const redirect = response.status >= 300 && response.status < 400 ? "; redirects are not followed" : "";
    throw new JwksProblem(`it answered HTTP ${status}, not 200 OK${redirect}`);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new JwksProblem("its answer is not JSON");
  }
  const set = json as { keys?: unknown } | null;
  if (typeof set !== "object" || set === null || !Array.isArray(set.keys)) throw new JwksProblem('its answer is JSON but no key set ({"keys": [...]})');
  if (set.keys.length === 0) throw new JwksProblem("it holds no keys");
  return new Response(text, { status: 200, headers: { "content-type": "application/json" } });
}

/** Why the JWKS could not be used, or undefined when the token itself failed. */
function jwksProblem(error: unknown): string | undefined {
  if (error instanceof JwksProblem) return error.message;
  if (error instanceof errors.JWKSTimeout) return `it did not answer within ${JWKS_TIMEOUT_MS / 1000} s`;
  if (error instanceof errors.JWKSInvalid) return error.message;
  if (error instanceof errors.JOSEError) return undefined;
  // Not jose's: fetch's own (`fetch failed` with the socket's reason as its cause) or the key import's.
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  return cause !== undefined && cause !== "" && cause !== message ? `${message}: ${cause}` : message;
}
