/**
 * Credentials in `OPENAI_BASE_URL` (`http://user:pass@host/v1`, `https://host/v1?api-key=…`) are never
 * printed: not in progress, errors, transcripts, cassettes or MCP logs. `maskURLCredentials` extends the
 * key's mask (key-mask.ts) with them: the user-info as written and percent-decoded (`user:pass`), the
 * password alone once it is long enough not to be an ordinary word (8 characters), and the value of a
 * query parameter whose name says it is a credential (`key`, `api-key`, `token`, `sig`, …) of that
 * length too, as written and decoded, each becoming `***`. `withoutCredentials` is a URL fit to quote,
 * parsable or not.
 */
import { MASK, mergeRuns, type KeyMask } from "./key-mask.js";

/** A password (or a credential parameter's value) at least this long is masked wherever it appears. */
const PASSWORD_ALONE = 8;
/** Query parameter names gateways take credentials in (Azure's `api-key`, `key`, `access_token`, a signed URL's `sig`). */
const CREDENTIAL_PARAMETER = /key|token|secret|sig|auth|pass/i;

/** The texts to mask for `baseURL`, longest first. */
export function credentialPieces(baseURL: string | undefined): string[] {
  if (baseURL === undefined) return [];
  const pieces = new Set<string>(queryCredentials(baseURL));
  const userInfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@]*)@/i.exec(baseURL)?.[1];
  if (userInfo !== undefined && userInfo !== "") {
    pieces.add(userInfo);
    pieces.add(decoded(userInfo));
    const colon = userInfo.indexOf(":");
    if (colon >= 0) {
      const password = userInfo.slice(colon + 1);
      for (const text of [password, decoded(password)]) if (text.length >= PASSWORD_ALONE) pieces.add(text);
    }
  }
  return [...pieces].filter((piece) => piece !== "").sort((a, b) => b.length - a.length);
}

/** The values of `baseURL`'s credential parameters, as written and decoded, those long enough to be no word. */
function queryCredentials(baseURL: string): string[] {
  const query = /\?([^#]*)/.exec(baseURL)?.[1];
  if (query === undefined) return [];
  const values: string[] = [];
  for (const pair of query.split("&")) {
    const equals = pair.indexOf("=");
    if (equals < 0 || !CREDENTIAL_PARAMETER.test(decoded(pair.slice(0, equals)))) continue;
    const value = pair.slice(equals + 1);
    for (const text of [value, decoded(value.replaceAll("+", " "))]) if (text.length >= PASSWORD_ALONE) values.push(text);
  }
  return values;
}

/** `mask` that also masks the credentials of `baseURL`. */
export function maskURLCredentials(mask: KeyMask, baseURL: string | undefined): KeyMask {
  const pieces = credentialPieces(baseURL);
  if (pieces.length === 0) return mask;
  const scrub = (text: string): string => pieces.reduce((result, piece) => result.split(piece).join(MASK), mask.scrub(text));
  return {
    secret: true,
    scrub,
    runs: (text) => mergeRuns([...mask.runs(text), ...pieces.flatMap((piece) => occurrences(text, piece))]),
    stream: (write) => mask.stream((text) => write(pieces.reduce((result, piece) => result.split(piece).join(MASK), text))),
  };
}

/** `url` with any user-info replaced by `***`, for quoting it in a message. */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, `$1${MASK}@`);
}

function occurrences(text: string, piece: string): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (let at = text.indexOf(piece); at !== -1; at = text.indexOf(piece, at + 1)) found.push([at, at + piece.length]);
  return found;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
