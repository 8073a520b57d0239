/**
 * Who a request's `Authorization` header says it is: one of the static tokens (compared in constant time
 * against each), else a JWT that verifies. A missing header, another scheme and a wrong token are all
 * the same answer: refused, without a reason. A JWT refused for a reason the client can act on (a token
 * typed for something else than access) is refused with that reason. Otherwise the answer names the
 * credential (`static:N` for the Nth static token, the JWT's subject), so a session can be held to the
 * one that opened it.
 */
import { tokenIndex } from "./bearer-tokens.js";
import { jwtVerifier, type JwtSettings } from "./jwt-verifier.js";

/** Who is asking, or that the request is not authorized (with a `reason` when the client is told why). */
export type Authentication = { ok: true; principal: string } | { ok: false; reason?: string };

export type Authenticate = (authorization: string | undefined) => Promise<Authentication>;

export function authenticator(tokens: readonly string[], jwt: JwtSettings | undefined, log: (line: string) => void): Authenticate {
  const indexOf = tokenIndex(tokens);
  const verifies = jwt !== undefined ? jwtVerifier(jwt, log) : undefined;
  return async (authorization) => {
    const token = /^Bearer +([^ ]+) *$/i.exec(authorization ?? "")?.[1];
    if (token === undefined) return { ok: false };
    const index = indexOf(token);
    if (index !== undefined) return { ok: true, principal: `static:${index}` };
    if (verifies === undefined) return { ok: false };
    const outcome = await verifies(token);
    return outcome.ok ? { ok: true, principal: `jwt:${outcome.subject}` } : outcome;
  };
}
