/**
 * Who a request's `Authorization` header says it is: one of the static tokens (compared in constant time
 * against each), else a JWT that verifies. A missing header, another scheme and a wrong token are all
 * the same answer: undefined. Otherwise the answer names the credential (`static:N` for the Nth static
 * token, the JWT's subject), so a session can be held to the one that opened it.
 */
import { tokenIndex } from "./bearer-tokens.js";
import { jwtVerifier, type JwtSettings } from "./jwt-verifier.js";

/** Resolves with who is asking, or undefined when the request is not authorized. */
export type Authenticate = (authorization: string | undefined) => Promise<string | undefined>;

export function authenticator(tokens: readonly string[], jwt: JwtSettings | undefined, log: (line: string) => void): Authenticate {
  const indexOf = tokenIndex(tokens);
  const verifies = jwt !== undefined ? jwtVerifier(jwt, log) : undefined;
  return async (authorization) => {
    const token = /^Bearer +([^ ]+) *$/i.exec(authorization ?? "")?.[1];
    if (token === undefined) return undefined;
    const index = indexOf(token);
    if (index !== undefined) return `static:${index}`;
    const subject = verifies !== undefined ? await verifies(token) : undefined;
    return subject !== undefined ? `jwt:${subject}` : undefined;
  };
}
