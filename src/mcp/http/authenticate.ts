/**
 * Whether a request's `Authorization` header carries a bearer token the server accepts: one of the
 * static tokens (compared in constant time against each), else a JWT that verifies. A missing header,
 * another scheme and a wrong token are all the same answer: no.
 */
import { tokenMatcher } from "./bearer-tokens.js";
import { jwtVerifier, type JwtSettings } from "./jwt-verifier.js";

export type Authenticate = (authorization: string | undefined) => Promise<boolean>;

export function authenticator(tokens: readonly string[], jwt: JwtSettings | undefined, log: (line: string) => void): Authenticate {
  const matches = tokenMatcher(tokens);
  const verifies = jwt !== undefined ? jwtVerifier(jwt, log) : undefined;
  return async (authorization) => {
    const token = /^Bearer +([^ ]+) *$/i.exec(authorization ?? "")?.[1];
    if (token === undefined) return false;
    if (matches(token)) return true;
    return verifies !== undefined && (await verifies(token));
  };
}
