/**
 * The schemas an MCP client gets, in the current specification's default dialect, JSON Schema 2020-12:
 * `$schema` named, `definitions` as `$defs` (and every `$ref` to them), a tuple's `items` array as
 * `prefixItems`, and "one type or null" (`type: ["string", "null"]`, draft-07's form of `string | null`)
 * as `anyOf` of the two, since clients such as the MCP Inspector warn about a type list. The schemas
 * file's own `tools` stay draft-07 for the chat APIs; this is a copy made for `tools/list`. Validated with
 * Ajv's 2020-12 class (`createAjv2020`).
 */
import { createRequire } from "node:module";
import type { Ajv } from "ajv";
import type { JsonSchema, JsonValue } from "../shared/schemas-file.js";

export const JSON_SCHEMA_2020 = "https://json-schema.org/draft/2020-12/schema";

/** Keywords that describe a value rather than constrain it: they stay beside an `anyOf` made from a type list. */
const ANNOTATIONS = new Set(["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"]);

/** Keywords whose values are JSON data, not schemas: copied as they are. */
const DATA = new Set(["enum", "const", "default", "examples", "required"]);

/** A 2020-12 copy of a draft-07 schema from the schemas file, with `$schema` first. */
export function toJsonSchema2020(schema: JsonSchema): JsonSchema {
  return { $schema: JSON_SCHEMA_2020, ...(converted(schema) as JsonSchema) };
}

function converted(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(converted);
  if (typeof value !== "object" || value === null) return value;
  const out: JsonSchema = {};
  for (const [key, inner] of Object.entries(value)) {
    if (DATA.has(key)) out[key] = inner;
    else if (key === "definitions") out.$defs = convertedMap(inner);
    else if (key === "properties" || key === "$defs" || key === "patternProperties") out[key] = convertedMap(inner);
    else if (key === "$ref" && typeof inner === "string" && inner.startsWith("#/definitions/")) out.$ref = `#/$defs/${inner.slice("#/definitions/".length)}`;
    else if (key === "items" && Array.isArray(inner)) out.prefixItems = inner.map(converted);
    else if (key === "additionalItems") out.items = converted(inner);
    else out[key] = converted(inner);
  }
  return splitNullableType(out);
}

/** A map of names to schemas (`properties`, `$defs`): the names are data, the values schemas. */
function convertedMap(value: JsonValue): JsonValue {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const out: JsonSchema = {};
  for (const [name, inner] of Object.entries(value)) out[name] = converted(inner);
  return out;
}

/** `{ type: ["string", "null"], minLength: 1 }` → `{ anyOf: [{ type: "string", minLength: 1 }, { type: "null" }] }`. */
function splitNullableType(node: JsonSchema): JsonSchema {
  const types = node.type;
  if (!Array.isArray(types) || types.length !== 2 || !types.includes("null")) return node;
  const other = types.find((type) => type !== "null")!;
  const outer: JsonSchema = {};
  const branch: JsonSchema = { type: other };
  for (const [key, inner] of Object.entries(node)) {
    if (key === "type") continue;
    if (ANNOTATIONS.has(key)) outer[key] = inner;
    else if (key === "enum" && Array.isArray(inner)) branch.enum = inner.filter((item) => item !== null);
    else branch[key] = inner;
  }
  return { ...outer, anyOf: [branch, { type: "null" }] };
}

const require = createRequire(import.meta.url);

/** Ajv's 2020-12 class with the formats, as the served schemas are checked (loaded when first needed). */
export function createAjv2020(): Ajv {
  const { Ajv2020 } = require("ajv/dist/2020") as typeof import("ajv/dist/2020");
  const addFormats = (require("ajv-formats") as typeof import("ajv-formats")).default;
  return addFormats(new Ajv2020({ allErrors: true, verbose: true, strict: false }) as unknown as Ajv);
}
