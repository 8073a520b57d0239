/**
 * Walking JSON Schemas, for gen and the dialect conversion alike (no compiler): every subschema of a node,
 * an array element's schema, a local `$ref` followed as a JSON Pointer, keys in canonical order, schemas
 * *settled* (frozen and marked, shared by every tool that uses them), and the definitions no `$ref`
 * reaches dropped.
 */
import type { JsonSchema, JsonValue } from "./schemas-file.js";

const SCHEMA_MAPS = ["properties", "patternProperties", "definitions", "dependencies"];
const SCHEMA_VALUES = ["additionalProperties", "additionalItems", "items", "contains", "not", "if", "then", "else", "propertyNames"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "items"];

function isSchema(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type Nesting = "map" | "value" | "list";

/** Keyword → how its value holds schemas and when the walk visits it (`items` is a schema or a list). */
const NESTING = new Map<string, { rank: number; nesting: Nesting }[]>();
[
  ...SCHEMA_MAPS.map((key) => [key, "map"] as const),
  ...SCHEMA_VALUES.map((key) => [key, "value"] as const),
  ...SCHEMA_LISTS.map((key) => [key, "list"] as const),
].forEach(([key, nesting], rank) => NESTING.set(key, [...(NESTING.get(key) ?? []), { rank, nesting }]));

/** Calls `visit` on `schema` and every schema nested in it (not on keyword values that merely look alike). */
export function forEachSchema(schema: JsonSchema, visit: (node: JsonSchema) => void): void {
  visit(schema);
  for (const child of childSchemas(schema)) forEachSchema(child, visit);
}

/** The schemas nested directly in `schema`, in the order `forEachSchema` visits them. */
export function childSchemas(schema: JsonSchema): JsonSchema[] {
  // Only the keywords present are looked at, in a fixed order: a schema has a few of the ~17 that can
  // nest, and asking an object for absent keys is slow once `delete` has turned it into a dictionary.
  const found: { rank: number; children: JsonSchema[] }[] = [];
  for (const key in schema) {
    for (const { rank, nesting } of NESTING.get(key) ?? []) {
      const children = nestedSchemas(schema[key], nesting);
      if (children !== undefined) found.push({ rank, children });
    }
  }
  if (found.length === 1) return found[0]!.children;
  if (found.length > 1) found.sort(byRank);
  return found.flatMap(({ children }) => children);
}

function nestedSchemas(value: JsonValue | undefined, nesting: Nesting): JsonSchema[] | undefined {
  if (nesting === "list") return Array.isArray(value) ? value.filter(isSchema) : undefined;
  if (!isSchema(value)) return undefined;
  return nesting === "map" ? Object.values(value).filter(isSchema) : [value];
}

function byRank(a: { rank: number }, b: { rank: number }): number {
  return a.rank - b.rank;
}

/**
 * The schema an array's element at `index` is checked against, in either dialect: a position of
 * 2020-12's `prefixItems` (then `items` after them) or of draft-07's `items` list (then
 * `additionalItems`), else `items` for every element. `undefined` when nothing describes it.
 */
export function itemSchemaAt(schema: JsonSchema, index: number): JsonValue | undefined {
  const positions = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
  if (positions === undefined) return schema.items;
  if (index < positions.length) return positions[index];
  return Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
}

/**
 * The segments of a local `$ref`: `#` is the document itself (no segment), `#/a/b` a JSON Pointer
 * (RFC 6901) in a URI fragment (RFC 3986), so percent escapes are decoded first, then `~1` (a `/`) and
 * `~0` (a `~`). `undefined` for any other `$ref` (another document, an anchor) or a malformed escape.
 */
export function pointerSegments(ref: string): string[] | undefined {
  if (ref === "#") return [];
  if (!ref.startsWith("#/")) return undefined;
  try {
    return ref.slice(2).split("/").map((raw) => decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~"));
  } catch {
    return undefined;
  }
}

/** What the segments lead to in `root`: object members by name, array elements by decimal index. */
export function valueAtPointer(root: JsonValue, segments: readonly string[]): JsonValue | undefined {
  let value: JsonValue | undefined = root;
  for (const segment of segments) {
    if (Array.isArray(value)) value = /^(0|[1-9][0-9]*)$/.test(segment) ? value[Number(segment)] : undefined;
    else if (isSchema(value) && Object.hasOwn(value, segment)) value = value[segment];
    else return undefined;
  }
  return value;
}

/** The name in a `#/definitions/<name>` ref (decoded as `pointerSegments` does), else `undefined`. */
export function definitionRefName(ref: string): string | undefined {
  const segments = pointerSegments(ref);
  return segments?.length === 2 && segments[0] === "definitions" ? segments[1] : undefined;
}

/** The keyword order we print schemas in: what a reader looks for first, then the rest alphabetically. */
const KEYWORD_ORDER = [
  "$ref", "type", "title", "description", "deprecated", "const", "enum", "format", "pattern",
  "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
  "items", "additionalItems", "minItems", "maxItems", "uniqueItems",
  "properties", "patternProperties", "additionalProperties", "required",
  "anyOf", "oneOf", "allOf", "not", "default", "examples", "definitions",
];
const KEYWORD_RANK = new Map(KEYWORD_ORDER.map((key, rank) => [key, rank]));

/**
 * Schemas in their final key order that nothing changes any more (frozen, nested schemas included):
 * tools share them as they are, and `orderSchemaKeys` returns them without a copy.
 */
const settled = new WeakSet<object>();

/** Whether `schema` was settled (see `settle`): then it is frozen, ordered, and may be shared. */
export function isSettled(schema: JsonSchema): boolean {
  return settled.has(schema);
}

/** Freezes a schema already in `orderSchemaKeys`' order, so that tools can share it; returns it. */
export function settle<T extends JsonValue>(value: T): T {
  if (typeof value !== "object" || value === null || settled.has(value)) return value;
  if (Array.isArray(value)) value.forEach(settle);
  else for (const key in value) settle(value[key]!);
  settled.add(value);
  return Object.freeze(value);
}

/**
 * A copy of `schema` with keywords in a fixed order at every level, so the file reads the same whatever
 * order they were set in. Property names keep their declaration order; definitions are sorted.
 */
export function orderSchemaKeys(schema: JsonSchema): JsonSchema {
  if (settled.has(schema)) return schema;
  const keys = Object.keys(schema);
  // Most schemas arrive in order already (made by this function, or copied from one that was).
  for (let i = 1; i < keys.length; i++) {
    if (byKeywordOrder(keys[i - 1]!, keys[i]!) > 0) {
      keys.sort(byKeywordOrder);
      break;
    }
  }
  const result: JsonSchema = {};
  for (const key of keys) {
    const value = schema[key]!;
    const kinds = NESTING.get(key) ?? [];
    if (typeof value !== "object" || value === null || kinds.length === 0) {
      result[key] = value;
    } else if (Array.isArray(value)) {
      result[key] = kinds.some((kind) => kind.nesting === "list") ? value.map((entry) => (isSchema(entry) ? orderSchemaKeys(entry) : entry)) : value;
    } else if (kinds.some((kind) => kind.nesting === "map")) {
      const names = key === "definitions" ? Object.keys(value).sort() : Object.keys(value);
      const map: JsonSchema = {};
      for (const name of names) {
        const entry = value[name]!;
        map[name] = isSchema(entry) ? orderSchemaKeys(entry) : entry;
      }
      result[key] = map;
    } else {
      result[key] = kinds.some((kind) => kind.nesting === "value") ? orderSchemaKeys(value) : value;
    }
  }
  return result;
}

function byKeywordOrder(a: string, b: string): number {
  return keywordRank(a) - keywordRank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

function keywordRank(key: string): number {
  return KEYWORD_RANK.get(key) ?? KEYWORD_ORDER.length;
}

/** Removes the definitions no `$ref` reaches from the root, and `definitions` itself when none is left. */
export function dropUnusedDefinitions(root: JsonSchema): void {
  const definitions = root.definitions;
  if (typeof definitions !== "object" || definitions === null || Array.isArray(definitions)) return;
  const used = new Set<string>();
  const pending: JsonSchema[] = [{ ...root, definitions: {} }];
  while (pending.length > 0) {
    forEachSchema(pending.pop()!, (node) => {
      const ref = node.$ref;
      if (typeof ref !== "string") return;
      const name = definitionRefName(ref);
      const target = name !== undefined && Object.hasOwn(definitions, name) ? definitions[name] : undefined;
      if (name === undefined || used.has(name) || !isSchema(target)) return;
      used.add(name);
      pending.push(target);
    });
  }
  for (const name of Object.keys(definitions)) if (!used.has(name)) delete definitions[name];
  if (used.size === 0) delete root.definitions;
}
