/**
 * The key-mask rule (docs/secrets.md): a key made of words is masked nowhere and no text changes; a key
 * that looks like a real secret never survives, whole, by its last 8 characters or by any 16-character
 * piece of its random part, also when written in pieces. Its boundary is tested both ways.
 */
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keyMask, MASK } from "../../../src/runtime/model/key-mask.js";
import { scrubSecret } from "../../../src/runtime/model/model-errors.js";
import { expectNoPiece, projectKey, secretPieces } from "../../support/key-pieces.js";
import { SENTINEL_API_KEY } from "../../support/sentinel-key.js";

const SENTENCE = "The path parameter is required; see docs/required-fields.md. Not needed: none, EMPTY, ollama, lm-studio.";
const hex = (chars: number) => randomBytes(chars).toString("hex").slice(0, chars);

/** Writes `text` through the mask's stream in pieces cut at `cuts`, and returns what came out. */
function streamed(key: string, text: string, cuts: number[]): string {
  let out = "";
  const stream = keyMask(key).stream((piece) => (out += piece));
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    stream.write(text.slice(from, Math.max(from, cut)));
    from = Math.max(from, cut);
  }
  stream.write(text.slice(from));
  stream.flush();
  return out;
}

describe("a key made of words is a placeholder: nothing is masked", () => {
  it.each(["sk-no-key-required", "not-needed", "lm-studio", "EMPTY", "ollama", "none", "sk-demo-not-a-real-key", "Bearer_Token"])("%s", (key) => {
    const text = `${SENTENCE} OPENAI_API_KEY=${key}; the key ends in ${key.slice(-8)}.`;
    expect(keyMask(key).secret).toBe(false);
    expect(scrubSecret(text, key)).toBe(text);
    expect(streamed(key, text, [3, 17, 40])).toBe(text);
  });

  it("an empty or short key masks nothing either", () => {
    expect(scrubSecret(SENTENCE, "")).toBe(SENTENCE);
    expect(scrubSecret("x and 1234 and sk-1234", "sk-1234")).toBe("x and 1234 and sk-1234");
  });
});

describe("the boundary: 16 characters of random-looking tokens make a secret", () => {
  it("15 hex characters after the prefix are a placeholder, 16 a secret", () => {
    const random = hex(16);
    expect(keyMask(`sk-${random.slice(0, 15)}`).secret).toBe(false);
    expect(keyMask(`sk-${random}`).secret).toBe(true);
    expect(scrubSecret(`key sk-${random}.`, `sk-${random}`)).toBe(`key ${MASK}.`);
    expect(scrubSecret(`key sk-${random.slice(0, 15)}.`, `sk-${random.slice(0, 15)}`)).toBe(`key sk-${random.slice(0, 15)}.`);
  });

  it("random tokens add up across separators; words do not count", () => {
    expect(keyMask("sk-a1b2c3d4-e5f6g7h8").secret).toBe(true);
    expect(keyMask("sk-a1b2c3d4-e5f6g7h").secret).toBe(false);
    expect(keyMask("sk-proj-please-replace-with-your-own-key-here").secret).toBe(false);
  });

  it("letters alone count as random when cases mix or the run is longer than a word", () => {
    expect(keyMask("sk-abcdefghijklmnopqrstuvwx").secret).toBe(false);
    expect(keyMask("sk-abcdefghijklmnopqrstuvwxy").secret).toBe(true);
    expect(keyMask("sk-aBcDeFgHiJkLmNoP").secret).toBe(true);
    expect(keyMask("sk-NoKeyRequired").secret).toBe(false);
  });

  it("CI's sentinel key (sk-sentinel-<24 hex>) and the suite's default one are secrets", () => {
    expect(keyMask(`sk-sentinel-${hex(24)}`).secret).toBe(true);
    expect(keyMask("sk-sentinel-7f3a9c1e5b2d4086-DO-NOT-LEAK").secret).toBe(true);
    expect(keyMask(SENTINEL_API_KEY).secret).toBe(true);
  });
});

describe("a secret key", () => {
  const key = projectKey(48);
  const randomPart = key.slice("sk-proj-".length);

  it("is masked whole, by its last 8 characters and by any 16-character piece of its random part", () => {
    expect(scrubSecret(`Authorization: Bearer ${key}`, key)).toBe(`Authorization: Bearer ${MASK}`);
    expect(scrubSecret(`the key …${key.slice(-8)} is invalid`, key)).toBe(`the key …${MASK} is invalid`);
    expect(scrubSecret(`[${randomPart.slice(5, 21)}]`, key)).toBe(`[${MASK}]`);
    expect(scrubSecret(`cut: ${key.slice(0, 30)}`, key)).toBe(`cut: sk-proj-${MASK}`);
  });

  it("leaves its public prefix and pieces shorter than 16 characters (not its tail) alone", () => {
    const text = `keys start with sk-proj-; [${randomPart.slice(5, 20)}]`;
    expect(scrubSecret(text, key)).toBe(text);
  });

  it("changes nothing else: one *** for each run of the key, the text around it kept", () => {
    expect(scrubSecret(`${SENTENCE}${key}${key} and ${key}\n${SENTENCE}`, key)).toBe(`${SENTENCE}${MASK} and ${MASK}\n${SENTENCE}`);
  });
});

const WORDS = ["sk", "no", "key", "required", "not", "needed", "lm", "studio", "EMPTY", "ollama", "none", "local", "Dummy", "TOKEN", "test"];
const placeholderKey = fc
  .tuple(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }), fc.constantFrom("-", "_", ".", ""))
  .map(([words, separator]) => words.join(separator))
  .filter((key) => key.split(/[^A-Za-z0-9]+/).every((token) => token.length <= 24 && /^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)$/.test(token)));
/** Texts that may hold the placeholder's own words, pieces of it and control characters. */
const anyText = (key: string) => fc.array(fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom(key, ...WORDS, key.slice(-8), "\n")), { maxLength: 20 }).map((parts) => parts.join(""));
const cuts = fc.array(fc.nat({ max: 400 }), { maxLength: 12 });
/** A real-looking key: a public prefix, then 40 to 160 characters as providers make them (base64url or hex). */
const realKey = fc
  .tuple(
    fc.constantFrom("sk-proj-", "sk-", "sk-ant-api03-", "sk-sentinel-", ""),
    fc.uint8Array({ minLength: 40, maxLength: 160 }),
    fc.constantFrom<"base64url" | "hex">("base64url", "hex"),
  )
  .map(([prefix, bytes, encoding]) => `${prefix}${Buffer.from(bytes).toString(encoding).slice(0, bytes.length)}`)
  .filter((key) => (key.match(/\d/g) ?? []).length >= 4);

describe("properties", () => {
  it("with a placeholder key, what is printed is what was said, whole or in pieces", () => {
    fc.assert(
      fc.property(placeholderKey.chain((key) => fc.tuple(fc.constant(key), anyText(key), cuts)), ([key, text, at]) => {
        expect(scrubSecret(text, key)).toBe(text);
        expect(streamed(key, text, at)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it("a real-looking key embedded in random text never survives, whole or written in pieces", () => {
    const embedded = realKey.chain((key) =>
      fc.tuple(
        fc.constant(key),
        fc.array(fc.oneof(fc.string(), fc.constant(key), fc.constant(key.slice(-8)), fc.nat({ max: key.length - 16 }).map((at) => key.slice(at, at + 16 + (at % 7)))), { minLength: 1, maxLength: 8 }).map((parts) => parts.join("")),
        cuts,
      ),
    );
    fc.assert(
      fc.property(embedded, ([key, text, at]) => {
        expect(keyMask(key).secret).toBe(true);
        expectNoPiece(scrubSecret(text, key), key);
        expectNoPiece(streamed(key, text, at), key);
      }),
      { numRuns: 300 },
    );
  });

  it("with a real key, a text holding no piece of it is printed unchanged, whole or in pieces", () => {
    fc.assert(
      fc.property(realKey, fc.string({ unit: "binary", maxLength: 300 }), cuts, (key, text, at) => {
        fc.pre(!secretPieces(key).some((piece) => text.includes(piece)));
        expect(scrubSecret(text, key)).toBe(text);
        expect(streamed(key, text, at)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it("a key streamed one character at a time comes out as one ***", () => {
    const key = projectKey(156);
    expect(streamed(key, `before ${key} after`, Array.from({ length: 200 }, (_, i) => i))).toBe(`before ${MASK} after`);
  });
});
