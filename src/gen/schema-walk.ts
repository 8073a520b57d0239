import type { JsonSchema, JsonValue } from "../shared/schemas-file.js";

const SCHEMA_MAPS = ["properties", "patternProperties", "definitions", "dependencies"];
const SCHEMA_VALUES = ["additionalProperties", "additionalItems", "items", "contains", "not", "if", "then", "else", "propertyNames"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "items"];

function isSchema(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Calls `visit` on `schema` and every schema nested in it (not on keyword values that merely look alike). */
export function forEachSchema(schema: JsonSchema, visit: (node: JsonSchema) => void): void {
  visit(schema);
  for (const key of SCHEMA_MAPS) {
    const map = schema[key];
    if (isSchema(map)) for (const value of Object.values(map)) if (isSchema(value)) forEachSchema(value, visit);
  }
  for (const key of SCHEMA_VALUES) {
    const value = schema[key];
    if (isSchema(value)) forEachSchema(value, visit);
  }
  for (const key of SCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) for (const value of list) if (isSchema(value)) forEachSchema(value, visit);
  }
}

/** The keyword order we print schemas in: what a reader looks for first, then the rest alphabetically. */
const KEYWORD_ORDER = [
  "$ref", "type", "title", "description", "deprecated", "const", "enum", "format", "pattern",
  "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
  "items", "additionalItems", "minItems", "maxItems", "uniqueItems",
  "properties", "patternProperties", "additionalProperties", "required",
  "anyOf", "oneOf", "allOf", "not", "default", "examples", "definitions",
];

/**
 * A copy of `schema` with keywords in a fixed order at every level, so the file reads the same whatever
 * order they were set in. Property names keep their declaration order; definitions are sorted.
 */
export function orderSchemaKeys(schema: JsonSchema): JsonSchema {
  const rank = (key: string) => {
    const index = KEYWORD_ORDER.indexOf(key);
    return index === -1 ? KEYWORD_ORDER.length : index;
  };
  const keys = Object.keys(schema).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const result: JsonSchema = {};
  for (const key of keys) {
    const value = schema[key]!;
    if (SCHEMA_MAPS.includes(key) && isSchema(value)) {
      const names = key === "definitions" ? Object.keys(value).sort() : Object.keys(value);
      const map: JsonSchema = {};
      for (const name of names) {
        const entry = value[name]!;
        map[name] = isSchema(entry) ? orderSchemaKeys(entry) : entry;
      }
      result[key] = map;
    } else if (SCHEMA_VALUES.includes(key) && isSchema(value)) {
      result[key] = orderSchemaKeys(value);
    } else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) {
      result[key] = value.map((entry) => (isSchema(entry) ? orderSchemaKeys(entry) : entry));
    } else {
      result[key] = value;
    }
  }
  return result;
}
