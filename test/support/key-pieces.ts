/**
 * What the key-mask rule (docs/secrets.md) says may never be printed of a secret key: the key, its last 8
 * characters, and every 16-character piece of its random part.
 */
import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { randomPartStart } from "../../src/runtime/model/key-mask.js";

export function secretPieces(key: string): string[] {
  const randomPart = key.slice(randomPartStart(key) ?? 0);
  const pieces = [key, key.slice(-8)];
  for (let at = 0; at + 16 <= randomPart.length; at += 1) pieces.push(randomPart.slice(at, at + 16));
  return pieces;
}

export function expectNoPiece(text: string, key: string): void {
  for (const piece of secretPieces(key)) expect(text).not.toContain(piece);
}

/** A key shaped like a real OpenAI project key: `sk-proj-` and base64url characters (the first a digit). */
export function projectKey(randomChars: number): string {
  return `sk-proj-7${randomBytes(randomChars).toString("base64url").slice(1, randomChars)}`;
}
