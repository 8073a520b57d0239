/**
 * The one rule for masking the API key (docs/secrets.md). A key made of words (`sk-no-key-required`,
 * `lm-studio`, `EMPTY`) is a placeholder and nothing is masked. A key with at least 16 characters of
 * random-looking tokens is a secret: every occurrence of the whole key, of its last 8 characters and of
 * any 16-character piece of its random part becomes `***`; no other character of any text changes.
 * `stream` applies the rule to text written in pieces, holding back a piece's end while it could
 * still be the start of the key, so a key split across writes is caught too.
 */

export interface KeyMask {
  /** Whether the key looks like a real secret; when false, `scrub` returns every text unchanged. */
  readonly secret: boolean;
  /** The text with every secret piece of the key replaced by `***`. */
  scrub(text: string): string;
  /** Where `scrub` puts a `***` in `text`: the runs it replaces, `[start, end)`, sorted and joined. */
  runs(text: string): Array<[number, number]>;
  /**
   * Text written in pieces (streamed deltas) through the mask. What could still grow into a masked piece
   * (the longest end of the text so far that occurs in the key) waits for the next write; `flush` writes
   * it. With a placeholder key every write passes through at once.
   */
  stream(write: (text: string) => void): MaskedStream;
}

export interface MaskedStream {
  /** Writes what is certainly no start of the key now, the rest with the next write or `flush`. */
  write(text: string): void;
  /** Writes what is held back. */
  flush(): void;
}

/** The replacement of every masked run. */
export const MASK = "***";
/** Random-looking characters a key needs to count as a secret; also the length of a masked piece. */
export const SECRET_MIN_RANDOM = 16;
/** A secret's last characters are masked on their own: providers and gateways echo keys as `…abcd1234`. */
export const SECRET_TAIL = 8;
/** Letters-only tokens longer than this are taken for random (no placeholder word is that long). */
const LONGEST_WORD = 24;

const NO_MASK: KeyMask = {
  secret: false,
  scrub: (text) => text,
  runs: () => [],
  stream: (write) => ({ write: (text) => void (text !== "" && write(text)), flush: () => undefined }),
};
let cached: { key: string; mask: KeyMask } | undefined;

/** The mask for `key` (the last one is cached: the CLI asks for the same key on every write). */
export function keyMask(key: string): KeyMask {
  if (cached?.key !== key) cached = { key, mask: buildMask(key) };
  return cached.mask;
}

/** Same as `keyMask(key).scrub(text)`. */
export function scrubSecret(text: string, key: string): string {
  return keyMask(key).scrub(text);
}

/**
 * Where a secret's random part starts: after its public prefix, the short lower-case words each followed
 * by `-` or `_` that providers put first (`sk-`, `sk-proj-`, `sk-ant-`, `gsk_`). `undefined` when the key
 * is a placeholder: fewer than 16 characters of its tokens look random.
 */
export function randomPartStart(key: string): number | undefined {
  let randomChars = 0;
  for (const token of key.matchAll(/[A-Za-z0-9]+/g)) if (!isWord(token[0])) randomChars += token[0].length;
  if (randomChars < SECRET_MIN_RANDOM) return undefined;
  return /^(?:[a-z]{1,8}[-_])*/.exec(key)?.[0].length ?? 0;
}

/** A word as placeholders are written: letters only, one case or capitalized, not too long. */
function isWord(token: string): boolean {
  return token.length <= LONGEST_WORD && /^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)$/.test(token);
}

function buildMask(key: string): KeyMask {
  const start = randomPartStart(key);
  if (start === undefined) return NO_MASK;
  const randomPart = key.slice(start);
  const pieces = new Set<string>();
  for (let at = 0; at + SECRET_MIN_RANDOM <= randomPart.length; at += 1) pieces.add(randomPart.slice(at, at + SECRET_MIN_RANDOM));
  // A mark per hash value modulo 2^16: most windows of a text are ruled out by one array read.
  const hashBits = new Uint8Array(HASH_BUCKETS);
  for (const piece of pieces) hashBits[(windowHashes(piece)[0] ?? 0) % HASH_BUCKETS] = 1;
  const tail = key.slice(-SECRET_TAIL);

  const maskedRuns = (text: string): Array<[number, number]> => {
    const runs: Array<[number, number]> = [];
    for (const needle of [key, tail]) {
      for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) runs.push([at, at + needle.length]);
    }
    const hashes = windowHashes(text);
    for (let at = 0; at < hashes.length; at += 1) {
      if (hashBits[(hashes[at] ?? 0) % HASH_BUCKETS] === 1 && pieces.has(text.slice(at, at + SECRET_MIN_RANDOM))) runs.push([at, at + SECRET_MIN_RANDOM]);
    }
    return mergeRuns(runs);
  };

  const scrub = (text: string): string => render(text, maskedRuns(text), text.length, false);

  const stream = (write: (text: string) => void): MaskedStream => {
    let pending = "";
    // How many leading characters of `pending` continue a masked run whose start was written already.
    let carried = 0;
    const emit = (buffer: string, cut: number): void => {
      const runs = carried > 0 ? mergeRuns([[0, carried], ...maskedRuns(buffer)]) : maskedRuns(buffer);
      const out = render(buffer, runs, cut, carried > 0);
      const straddling = runs.find(([begin, end]) => begin < cut && cut < end);
      carried = straddling === undefined ? 0 : straddling[1] - cut;
      pending = buffer.slice(cut);
      if (out !== "") write(out);
    };
    return {
      write: (text) => {
        const buffer = pending + text;
        emit(buffer, buffer.length - keyLikeEnd(buffer, key));
      },
      flush: () => emit(pending, pending.length),
    };
  };

  return { secret: true, scrub, runs: maskedRuns, stream };
}

/** `text` up to `limit` with each run as one `***` (none for a first run at 0 that continues one written before). */
function render(text: string, runs: ReadonlyArray<readonly [number, number]>, limit: number, continuing: boolean): string {
  let out = "";
  let from = 0;
  for (const [begin, end] of runs) {
    if (begin >= limit) break;
    out += text.slice(from, begin) + (continuing && begin === 0 ? "" : MASK);
    from = Math.min(end, limit);
  }
  return out + text.slice(from, limit);
}

const HASH_BASE = 31;
const HASH_BUCKETS = 1 << 16;
const HASH_DROP = Array.from({ length: SECRET_MIN_RANDOM - 1 }).reduce<number>((power) => Math.imul(power, HASH_BASE), 1);

/**
 * A rolling hash of every 16-character window of `text` (index = the window's start), so that a long text
 * is scanned in one pass and only windows whose hash is a piece's are compared as strings.
 */
function windowHashes(text: string): Uint32Array {
  const count = Math.max(0, text.length - SECRET_MIN_RANDOM + 1);
  const hashes = new Uint32Array(count);
  if (count === 0) return hashes;
  let hash = 0;
  for (let at = 0; at < SECRET_MIN_RANDOM; at += 1) hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(at)) | 0;
  hashes[0] = hash;
  for (let at = 1; at < count; at += 1) {
    hash = (Math.imul(hash - Math.imul(text.charCodeAt(at - 1), HASH_DROP), HASH_BASE) + text.charCodeAt(at + SECRET_MIN_RANDOM - 1)) | 0;
    hashes[at] = hash;
  }
  return hashes;
}

/** Sorted, with overlapping and touching runs joined (one `***` for one key, however it was matched). */
export function mergeRuns(runs: Array<[number, number]>): Array<[number, number]> {
  runs.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const run of runs) {
    const last = merged[merged.length - 1];
    if (last !== undefined && run[0] <= last[1]) last[1] = Math.max(last[1], run[1]);
    else merged.push([run[0], run[1]]);
  }
  return merged;
}

/** Length of the longest end of `text` that occurs in `key` (every shorter end then occurs too). */
function keyLikeEnd(text: string, key: string): number {
  let length = 0;
  while (length < Math.min(text.length, key.length) && key.includes(text.slice(text.length - length - 1))) length += 1;
  return length;
}
