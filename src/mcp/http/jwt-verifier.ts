/**
 * JWTs from an outside authorization server, checked with `jose`: the signature against a key of the
 * JWKS at `--jwks-url` (fetched on first use, cached, fetched again for an unknown key id), the expiry
 * and not-before times, the issuer and the audience. Any failure is one answer: not authorized; a JWKS
 * that cannot be fetched is also said on stderr (without the token), since no JWT can pass until it can.
 */
import { createRemoteJWKSet, errors, jwtVerify } from "jose";

export interface JwtSettings {
  jwksUrl: string;
  issuer: string;
  audience: string;
}

export function jwtVerifier(settings: JwtSettings, log: (line: string) => void): (token: string) => Promise<boolean> {
  const keys = createRemoteJWKSet(new URL(settings.jwksUrl));
  return async (token) => {
    // Three dot-separated parts, or it is no JWT (a static token that did not match): no JWKS fetch.
    if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) return false;
    try {
      await jwtVerify(token, keys, { issuer: settings.issuer, audience: settings.audience });
      return true;
    } catch (error) {
      if (!(error instanceof errors.JOSEError) || error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) {
        log(`mcp: cannot use the JWKS at ${settings.jwksUrl} (${error instanceof Error ? error.message : String(error)}); JWTs are refused until it answers with keys (--jwks-url)`);
      }
      return false;
    }
  };
}
