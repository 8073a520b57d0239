import { jsonParseMessage } from "../../shared/json-parse-message.js";
import { isRecord } from "./describe-json.js";

export type ParsedArguments =
  | { ok: true; args: Record<string, unknown>; decodedString: boolean }
  | { ok: false; problem: "invalid_json"; parserMessage: string }
  | { ok: false; problem: "not_an_object"; value: unknown };

/**
 * Turns the model's `arguments` text into an arguments object. Empty text, whitespace and `null` mean no
 * arguments; a JSON string holding an object (double-encoded, a common model slip) is decoded once.
 * `JSON.parse` makes `__proto__` an ordinary own key, so nothing parsed here touches a prototype.
 */
export function parseToolArguments(text: string): ParsedArguments {
  if (text.trim() === "") return { ok: true, args: {}, decodedString: false };
  const parsed = tryParse(text);
  if (!parsed.ok) return { ok: false, problem: "invalid_json", parserMessage: parsed.error };
  if (parsed.value === null) return { ok: true, args: {}, decodedString: false };
  if (isRecord(parsed.value)) return { ok: true, args: parsed.value, decodedString: false };
  if (typeof parsed.value === "string") {
    const inner = tryParse(parsed.value);
    if (inner.ok && isRecord(inner.value)) return { ok: true, args: inner.value, decodedString: true };
  }
  return { ok: false, problem: "not_an_object", value: parsed.value };
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    // RangeError for nesting deeper than the stack, SyntaxError otherwise: both mean "not usable JSON".
    return { ok: false, error: jsonParseMessage(error) };
  }
}
