/**
 * JSON-RPC ids go back exactly as they were written. JSON.parse reads `9007199254740993` as
 * 9007199254740992, `-0` as 0 and `1.0` or `1e2` as 1 and 100, and JSON.stringify would write those
 * back; the SDK's schema refuses any integer beyond 2^53. So an integer id whose literal JSON.stringify
 * would not write again, or beyond 2^53, travels through the SDK as a marker string (a prefix random to
 * this process, then the literal), and every text the server writes has each marker replaced by its
 * literal, unquoted. A fractional id is refused (MCP's ids are integers or strings), with its literal,
 * also one JSON.parse rounds to an integer (`1.0000000000000001`, `1e-400`). The same literal always makes the same marker: ids
 * are compared as written (`7` and `7.0` are two ids, `9007199254740993` and `…992` too).
 *
 * The literal is read from the message's text (`memberText`): only when the parsed id is a number that
 * may have been written otherwise, so the common message (a small integer id, written plainly) costs
 * one regular-expression search and no scan.
 */
import { randomUUID } from "node:crypto";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { memberText } from "./member-text.js";

export type WireId = string | number;

const PREFIX = `sigloop-id-${randomUUID()}:`;
const MARKERS = new RegExp(`"${PREFIX}([-+.0-9eE]+)"`, "g");
/** An `id` member (its key perhaps escaped) holding a number with a fraction or an exponent. */
const MAYBE_WRITTEN_OTHERWISE = /"(?:i|\\u0069)(?:d|\\u0064)"\s*:\s*-?\d+[.eE]/i;

/**
 * The parsed message (not yet validated) with an integer `id`, and a cancellation's integer
 * `params.requestId`, as markers where JSON.stringify would not write their literals back or the SDK's
 * schema would refuse them (beyond 2^53). A fractional id stays a number: the schema refuses it.
 */
export function withIdLiterals(text: string, value: unknown): unknown {
  if (!isRecord(value)) return value;
  let result = value;
  if (typeof value.id === "number") {
    const id = integerLiteralId(text, value.id, ["id"]);
    if (id !== value.id) result = { ...result, id };
  }
  const params = value.method === "notifications/cancelled" && isRecord(value.params) ? value.params : undefined;
  if (typeof params?.requestId === "number") {
    const requestId = integerLiteralId(text, params.requestId, ["params", "requestId"]);
    if (requestId !== params.requestId) result = { ...result, params: { ...params, requestId } };
  }
  return result;
}

/** The `id` of a message that failed validation, as written, when it has a usable one (the error answer carries it). */
export function readableId(text: string, value: unknown): WireId | null {
  if (!isRecord(value)) return null;
  const { id } = value;
  if (typeof id === "string") return id;
  if (typeof id !== "number") return null;
  const literal = literalToKeep(text, id, ["id"]);
  return literal === undefined ? id : marker(literal);
}

/** The id as a client wrote it, for messages and logs: a string quoted, a number as its literal. */
export function idAsWritten(id: WireId): string {
  const literal = literalOf(id);
  return literal ?? JSON.stringify(id);
}

/** The id as one string (the executor's call id): a number's literal, a string as it is. */
export function idString(id: WireId): string {
  return literalOf(id) ?? String(id);
}

/** Whether `id` stands for a literal JSON.stringify would not write. */
export function isIdLiteral(id: unknown): boolean {
  return typeof id === "string" && id.startsWith(PREFIX);
}

/** Whether written bytes hold a marker (they are then rewritten with `writeIdLiterals`). */
export function holdsIdLiterals(bytes: Buffer): boolean {
  return bytes.includes(PREFIX);
}

/** `json` (written by JSON.stringify) with every marker replaced by the literal it stands for. */
export function writeIdLiterals(json: string): string {
  return json.includes(PREFIX) ? json.replace(MARKERS, "$1") : json;
}

/** The message as one JSON text, its `id` member first when it is a marker (written as its literal). */
export function serializeMessage(message: JSONRPCMessage): string {
  const { id } = message as { id?: unknown };
  if (!isIdLiteral(id)) return JSON.stringify(message);
  return writeIdLiterals(JSON.stringify({ id, ...message }));
}

function literalOf(id: WireId): string | undefined {
  return isIdLiteral(id) ? (id as string).slice(PREFIX.length) : undefined;
}

/**
 * A marker for an integer literal; NaN, which no schema takes for an id, for any other: JSON.parse may
 * have rounded a fraction to an integer (`1.0000000000000001` to 1, `1e-400` to 0), and the parsed
 * number would then be served, or cancel a request, as that integer.
 */
function integerLiteralId(text: string, parsed: number, path: readonly string[]): WireId {
  const literal = literalToKeep(text, parsed, path);
  if (literal === undefined) return parsed;
  return isIntegerLiteral(literal) ? marker(literal) : Number.NaN;
}

/** The literal of the number at `path` when the parsed number would not stand for it: written otherwise, or beyond 2^53. */
function literalToKeep(text: string, parsed: number, path: readonly string[]): string | undefined {
  // The quick look knows the `id` key only; a cancellation, small, is always read.
  const plain = path.length === 1 && path[0] === "id" && !MAYBE_WRITTEN_OTHERWISE.test(text);
  if (plain && Number.isSafeInteger(parsed) && !Object.is(parsed, -0)) return undefined;
  const literal = memberText(text, path);
  return literal === undefined || (literal === JSON.stringify(parsed) && Number.isSafeInteger(parsed)) ? undefined : literal;
}

/** Whether a JSON number literal stands for an integer, exactly: `1.0`, `1e2` and `120e-1` do, `2.5` does not. */
function isIntegerLiteral(literal: string): boolean {
  const [, whole = "", fraction = "", exponent = "0"] = /^-?(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?$/.exec(literal) ?? [];
  const digits = whole + fraction;
  const places = fraction.length - Number(exponent);
  const zeros = trailingZeros(digits);
  return places <= 0 || zeros === digits.length || zeros >= places;
}

/** Counted from the end by hand: a regular expression such as /0*$/ is quadratic in a long run of zeros not at the end. */
function trailingZeros(digits: string): number {
  let count = 0;
  while (count < digits.length && digits.charCodeAt(digits.length - 1 - count) === 0x30) count += 1;
  return count;
}

function marker(literal: string): string {
  return `${PREFIX}${literal}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
