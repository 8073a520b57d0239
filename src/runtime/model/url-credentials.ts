/**
 * Credentials in `OPENAI_BASE_URL` (`http://user:pass@host/v1`) are never printed: not in progress, errors,
 * transcripts or MCP logs. `maskURLCredentials` extends the key's mask (key-mask.ts) with them: the
 * user-info as written and percent-decoded (`user:pass`), and the password alone once it is long enough
 * not to be an ordinary word (8 characters), each becoming `***`. `withoutCredentials` is a URL fit to
 * quote, parsable or not.
 */
import { MASK, type KeyMask } from "./key-mask.js";

/** A password at least this long is masked wherever it appears, not only beside its user name. */
const PASSWORD_ALONE = 8;

/** The texts to mask for `baseURL`, longest first. */
export function credentialPieces(baseURL: string | undefined): string[] {
  if (baseURL === undefined) return [];
  const userInfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@]*)@/i.exec(baseURL)?.[1];
  if (userInfo === undefined || userInfo === "") return [];
  const pieces = new Set<string>([userInfo, decoded(userInfo)]);
  const colon = userInfo.indexOf(":");
  if (colon >= 0) {
    const password = userInfo.slice(colon + 1);
    for (const text of [password, decoded(password)]) if (text.length >= PASSWORD_ALONE) pieces.add(text);
  }
  return [...pieces].filter((piece) => piece !== "").sort((a, b) => b.length - a.length);
}

/** `mask` that also masks the credentials of `baseURL`. */
export function maskURLCredentials(mask: KeyMask, baseURL: string | undefined): KeyMask {
  const pieces = credentialPieces(baseURL);
  if (pieces.length === 0) return mask;
  const scrub = (text: string): string => pieces.reduce((result, piece) => result.split(piece).join(MASK), mask.scrub(text));
  return {
    secret: true,
    scrub,
    stream: (write) => mask.stream((text) => write(pieces.reduce((result, piece) => result.split(piece).join(MASK), text))),
  };
}

/** `url` with any user-info replaced by `***`, for quoting it in a message. */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, `$1${MASK}@`);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
