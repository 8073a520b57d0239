import type { JsonValue } from "../../shared/schemas-file.js";

/**
 * The JSDoc tags that become JSON Schema keywords, and the JSON type each keyword needs. A tag's text is
 * read as JSON when it parses (`@default [1, 2]`, `@example "cats"`), else as a plain string.
 */
const numberKeywords = new Set(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]);
const countKeywords = new Set(["minLength", "maxLength", "minItems", "maxItems"]);

/** Formats Ajv knows once `ajv-formats` is added; any other `@format` would fail Ajv's strict mode. */
const KNOWN_FORMATS: ReadonlySet<string> = new Set([
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

function parseTagText(text: string): JsonValue {
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

type JsonType = "number" | "string" | "array";

/** The one JSON type each typed keyword constrains; the other keywords (default, examples, deprecated) fit any value. */
const KEYWORD_TYPE = new Map<string, JsonType>([
  ...[...numberKeywords].map((keyword) => [keyword, "number"] as const),
  ["minLength", "string"], ["maxLength", "string"], ["pattern", "string"], ["format", "string"],
  ["minItems", "array"], ["maxItems", "array"], ["uniqueItems", "array"],
]);

const TYPE_PLURAL: Record<JsonType, string> = { number: "numbers", string: "strings", array: "arrays" };

/** The tag a keyword came from, as the user wrote it. */
function tagName(keyword: string): string {
  return keyword === "examples" ? "@example" : `@${keyword}`;
}

/** Whether a keyword constrains one JSON type (and so must be placed where that type is). */
export function isTypedKeyword(keyword: string): boolean {
  return KEYWORD_TYPE.has(keyword);
}

type Schema = { [keyword: string]: JsonValue };

function isSchema(value: JsonValue | undefined): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * What placing a keyword did to a schema: `applied`; `holds` (a tuple's fixed length already meets an
 * item-count bound); `excludes` (a tuple's fixed length breaks it, so that branch can never match);
 * `mismatch` (no part of the schema has the keyword's type).
 */
type Placement = "applied" | "holds" | "excludes" | "mismatch";

/** The fixed length of a tuple schema as `finishParameters` writes it, or undefined for any other schema. */
function tupleLength(schema: Schema): number | undefined {
  if (schema.type !== "array") return undefined;
  if (Array.isArray(schema.items)) return schema.items.length;
  // An empty tuple's `items` is `{}` once finished, absent before: either way no element is allowed.
  return (schema.items === undefined || isEmptySchema(schema.items)) && schema.maxItems === 0 ? 0 : undefined;
}

function isEmptySchema(value: JsonValue): boolean {
  return isSchema(value) && Object.keys(value).length === 0;
}

function hasType(schema: Schema, type: JsonType): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes(type) || (type === "number" && types.includes("integer"));
}

function place(schema: Schema, keyword: string, value: JsonValue, type: JsonType): Placement {
  const length = tupleLength(schema);
  if (length !== undefined && (keyword === "minItems" || keyword === "maxItems") && typeof value === "number") {
    // A tuple pins its length already: a bound narrows the lengths allowed, it is not a second minItems.
    return (keyword === "minItems" ? length >= value : length <= value) ? "holds" : "excludes";
  }
  if (schema.type !== undefined) {
    if (!hasType(schema, type)) return "mismatch";
    applyKeyword(schema, keyword, value);
    return "applied";
  }
  const listKey = Array.isArray(schema.anyOf) ? "anyOf" : Array.isArray(schema.oneOf) ? "oneOf" : undefined;
  if (listKey === undefined) return "mismatch";
  const branches = (schema[listKey] as JsonValue[]).filter(isSchema);
  const results = branches.map((branch) => place(branch, keyword, value, type));
  const kept = branches.filter((_, index) => results[index] !== "excludes");
  if (!results.includes("applied") && !results.includes("holds")) return results.includes("excludes") ? "excludes" : "mismatch";
  if (kept.length < branches.length) {
    schema[listKey] = kept;
    if (kept.length === 1) {
      delete schema[listKey];
      Object.assign(schema, kept[0]);
    }
    return "applied";
  }
  return results.includes("applied") ? "applied" : "holds";
}

/** How a schema reads in a message: "a number", "a string or null", "a tuple of 1 or 2 items". */
function describeSchema(schema: Schema): string {
  const phrases = new Set<string>();
  collectPhrases(schema, phrases);
  // "a boolean or null" reads better than "null or a boolean".
  const list = [...phrases].sort((a, b) => Number(a === "null") - Number(b === "null"));
  return list.length === 0 ? "any JSON value" : list.length === 1 ? list[0]! : `${list.slice(0, -1).join(", ")} or ${list.at(-1)!}`;
}

function collectPhrases(schema: Schema, phrases: Set<string>): void {
  if (typeof schema.$ref === "string") {
    phrases.add(`a ${decodeURIComponent(schema.$ref.slice(schema.$ref.lastIndexOf("/") + 1))}`);
    return;
  }
  const lengths = tupleLengths(schema);
  if (lengths.length > 0) {
    const count = lengths.length === 1 ? String(lengths[0]) : `${lengths.slice(0, -1).join(", ")} or ${lengths.at(-1)}`;
    phrases.add(`a tuple of ${count} ${count === "1" ? "item" : "items"}`);
    return;
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  for (const type of types) {
    if (type === "null") phrases.add("null");
    else if (type === "array") phrases.add("an array");
    else if (type === "integer") phrases.add("an integer");
    else if (type === "object") phrases.add(isSchema(schema.additionalProperties) ? "a record (an object with any keys)" : "an object");
    else phrases.add(`a ${String(type)}`);
  }
  if (types.length === 0 && Array.isArray(schema.enum)) phrases.add(`one of ${schema.enum.map((value) => JSON.stringify(value)).join(", ")}`);
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const branch of branches) if (isSchema(branch)) collectPhrases(branch, phrases);
  }
}

/** The lengths a tuple schema (one fixed tuple, or `anyOf` of them) allows; empty for anything else. */
function tupleLengths(schema: Schema): number[] {
  const length = tupleLength(schema);
  if (length !== undefined) return [length];
  if (schema.type !== undefined || !Array.isArray(schema.anyOf)) return [];
  const branches = schema.anyOf.filter(isSchema).map(tupleLength);
  return branches.length > 0 && branches.every((entry) => entry !== undefined) ? (branches as number[]).sort((a, b) => a - b) : [];
}

/** A keyword that could not be placed (an error) or that a tuple's length already implies (a warning). */
export interface PlacementProblem {
  severity: "error" | "warning";
  message: string;
}

/**
 * Puts a tag's keyword where its JSON type is: on the schema if its `type` includes it, else inside each
 * `anyOf`/`oneOf` branch that has it. A schema without that type anywhere is an error, since strict Ajv
 * rejects the keyword there (or, for `@format` on a number, it would silently mean nothing). On a
 * tuple, `@minItems`/`@maxItems` narrow the lengths allowed. `subject` names the value in messages:
 * `parameter "n" of tool "f"`.
 */
export function placeKeyword(schema: Schema, keyword: string, value: JsonValue, subject: string): PlacementProblem | undefined {
  const type = KEYWORD_TYPE.get(keyword);
  if (type === undefined) {
    applyKeyword(schema, keyword, value);
    return undefined;
  }
  const placement = place(schema, keyword, value, type);
  if (placement === "applied") return undefined;
  // Only "applied" changes the schema, so it still reads as the user's type here.
  const found = describeSchema(schema);
  const tag = `${tagName(keyword)} ${JSON.stringify(value)}`;
  switch (placement) {
    case "holds":
      return { severity: "warning", message: `${tag} changes nothing: ${subject} is ${found}, which already meets it; remove the tag` };
    case "excludes":
      return { severity: "error", message: `${tag} rules out every value of ${subject}, which is ${found}` };
    case "mismatch": {
      const inner = isSchema(schema.additionalProperties) ? "; a tag constrains the record itself, not its values"
        : isSchema(schema.items) ? "; a tag constrains the array itself, not its elements" : "";
      return { severity: "error", message: `${tagName(keyword)} applies to ${TYPE_PLURAL[type]}, but ${subject} is ${found}${inner}` };
    }
  }
}
