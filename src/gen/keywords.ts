import type { JsonValue } from "../shared/schemas-file.js";

/**
 * The JSDoc tags that become JSON Schema keywords, and the JSON type each keyword needs. A tag's text is
 * read as JSON when it parses (`@default [1, 2]`, `@example "cats"`), else as a plain string.
 */
const numberKeywords = new Set(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]);
const countKeywords = new Set(["minLength", "maxLength", "minItems", "maxItems"]);

/** Formats Ajv knows once `ajv-formats` is added; any other `@format` would fail Ajv's strict mode. */
export const KNOWN_FORMATS: ReadonlySet<string> = new Set([
  "date", "time", "date-time", "iso-time", "iso-date-time", "duration", "uri", "uri-reference", "uri-template",
  "url", "email", "hostname", "ipv4", "ipv6", "regex", "uuid", "json-pointer", "json-pointer-uri-fragment",
  "relative-json-pointer", "byte", "int32", "int64", "float", "double", "password", "binary",
]);

/** Tag names (without `@`) that this module turns into keywords. */
export const VALIDATION_TAGS: ReadonlySet<string> = new Set([
  ...numberKeywords, ...countKeywords, "pattern", "format", "uniqueItems", "default", "example", "deprecated",
]);

/** A keyword ready to set on a schema, or the reason the tag cannot become one. */
export type KeywordResult = { keyword: string; value: JsonValue } | { error: string };

/** Parses the text of `@tag text` and turns it into a keyword. */
export function keywordFromTag(tag: string, text: string): KeywordResult {
  return normalizeKeyword(tag, parseTagText(text.trim()));
}

export function parseTagText(text: string): JsonValue {
  if (text === "") return "";
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/**
 * Checks and converts an already-parsed tag value (from our JSDoc reading or from
 * typescript-json-schema's, which reads member tags) into the keyword with the JSON type it needs.
 * `@example` becomes `examples` (the draft-07 keyword Ajv accepts); `@deprecated` is a flag.
 */
export function normalizeKeyword(tag: string, value: JsonValue): KeywordResult {
  const shown = typeof value === "string" ? `"${value}"` : JSON.stringify(value);
  if (numberKeywords.has(tag)) {
    if (typeof value !== "number") return { error: `@${tag} needs a number, got ${shown}` };
    if (tag === "multipleOf" && !(value > 0)) return { error: `@multipleOf needs a number above 0, got ${shown}` };
    return { keyword: tag, value };
  }
  if (countKeywords.has(tag)) {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
      return { error: `@${tag} needs a whole number of 0 or more, got ${shown}` };
    }
    return { keyword: tag, value };
  }
  switch (tag) {
    case "pattern": {
      const pattern = typeof value === "number" ? String(value) : value;
      if (typeof pattern !== "string" || pattern === "") return { error: `@pattern needs a regular expression, got ${shown}` };
      try {
        new RegExp(pattern, "u");
      } catch {
        return { error: `@pattern ${pattern} is not a valid regular expression` };
      }
      return { keyword: "pattern", value: pattern };
    }
    case "format":
      if (typeof value !== "string" || !KNOWN_FORMATS.has(value)) {
        return { error: `@format ${shown} is not a format Ajv knows; use one of ${[...KNOWN_FORMATS].join(", ")}` };
      }
      return { keyword: "format", value };
    case "uniqueItems":
      if (value === "" || value === true) return { keyword: "uniqueItems", value: true };
      if (value === false) return { keyword: "uniqueItems", value: false };
      return { error: `@uniqueItems takes no value (or true/false), got ${shown}` };
    case "deprecated":
      return { keyword: "deprecated", value: true };
    case "default":
      return { keyword: "default", value };
    case "example":
      return { keyword: "examples", value: [value] };
    default:
      return { error: `@${tag} is not a validation tag` };
  }
}

/** Sets a keyword on a schema; repeated `@example` tags collect into one `examples` list. */
export function applyKeyword(schema: { [keyword: string]: JsonValue }, keyword: string, value: JsonValue): void {
  const existing = schema[keyword];
  schema[keyword] = keyword === "examples" && Array.isArray(existing) && Array.isArray(value) ? [...existing, ...value] : value;
}
