/**
 * The static bearer tokens: those of each `--token-file` (one per line; blank lines and `#` lines
 * skipped; CRLF trimmed; read once at start; a relative path resolved against `cwd`, the directory the
 * command was started from, and named resolved in every message; a directory, FIFO or device refused) and `$SIGLOOP_MCP_TOKEN`
 * (set but blank, or holding a space, it is refused rather than ignored: the operator meant a token, and a
 * loopback server would otherwise run without any). `tokenIndex` finds which configured token a presented
 * one is, in constant time: both sides are hashed to the same length first, and every token is compared,
 * so neither the length nor the position of a match shows in the timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import path from "node:path";
import { NotRegularFileError, readRegularFile } from "../../runtime/workspace/regular-file.js";

export type TokensRead = { ok: true; tokens: string[] } | { ok: false; error: string };

export function readBearerTokens(files: readonly string[], envToken: string | undefined, cwd: string): TokensRead {
  const tokens: string[] = [];
  for (const given of files) {
    const file = path.resolve(cwd, given);
    let text: string;
    try {
      // Never blocks on a FIFO or device: the server would not start, and say nothing.
      text = readRegularFile(file);
    } catch (error) {
      if (error instanceof NotRegularFileError) return { ok: false, error: `${error.message} (--token-file): give the file that holds the tokens` };
      return { ok: false, error: `cannot read the token file ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}) (--token-file)` };
    }
    const lines = text.split("\n").map((line) => line.replace(/\r$/, "").trim());
    const found = lines.filter((line) => line !== "" && !line.startsWith("#"));
    if (found.length === 0) return { ok: false, error: `the token file ${file} holds no token (one per line; # starts a comment) (--token-file)` };
    if (found.some((token) => /\s/.test(token))) return { ok: false, error: `a token in ${file} contains a space or tab; a bearer token is one word (--token-file)` };
    tokens.push(...found);
  }
  if (envToken === undefined) return { ok: true, tokens };
  const fromEnv = envToken.trim();
  if (fromEnv === "") return { ok: false, error: "$SIGLOOP_MCP_TOKEN is set but empty: give it the token, or unset it to serve a loopback address without one" };
  if (/\s/.test(fromEnv)) return { ok: false, error: "$SIGLOOP_MCP_TOKEN contains a space or tab; a bearer token is one word" };
  tokens.push(fromEnv);
  return { ok: true, tokens };
}

/** The position of the presented token among `tokens` (the first, when listed twice), or undefined. */
export function tokenIndex(tokens: readonly string[]): (presented: string) => number | undefined {
  const digests = tokens.map(digest);
  return (presented) => {
    const candidate = digest(presented);
    let found = -1;
    for (let i = digests.length - 1; i >= 0; i -= 1) {
      // Every digest is compared, whichever matches: the time does not depend on the position.
      const equal = timingSafeEqual(digests[i] as Buffer, candidate);
      found = equal ? i : found;
    }
    return found === -1 ? undefined : found;
  };
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}
