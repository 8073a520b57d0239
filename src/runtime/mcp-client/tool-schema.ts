/**
 * A server's `inputSchema` in the three forms sigloop uses:
 * - offered: as listed, but without a top-level `$schema`, with `properties: {}` added when missing
 *   (providers refuse an object schema without it) and `items: {}` added to every array schema without
 *   `items`, at any depth (OpenAI refuses such a function, strict or not; `{}` means what the absence
 *   meant: any item); this is the tool's `parameters`, the same for every provider;
 * - checked: the listed schema (without `$schema`, with `properties`, no `items` added: calls are checked
 *   against the server's own schema) with every object that leaves its keys open by omission closed
 *   (`additionalProperties: false` where neither `additionalProperties`, `patternProperties` nor
 *   `unevaluatedProperties` is written), so a key the model invents is dropped and noted instead of sent.
 *   Objects combined by `allOf`, `$ref` or `if` at the same place are left open: closing one part would
 *   drop the keys another part names;
 * - its dialect: draft-07 (also draft-06 and draft-04, which Ajv's default class reads) or 2019-09 when its
 *   `$schema` says so, else JSON Schema 2020-12, MCP's default.
 * Ajv compiles on the agent's thread, where it cannot be stopped, in time that grows with a schema's size
 * and faster with its patterns: `compileLimitProblem` says why one is too large to compile there.
 */
import type { JsonSchema, JsonValue, ParametersSchema } from "../../shared/schemas-file.js";
import type { SchemaDialect } from "../execution/validate-arguments.js";

export interface ToolSchemas {
  offered: ParametersSchema;
  checked: ParametersSchema;
  dialect: SchemaDialect;
}

export function prepareToolSchema(inputSchema: unknown): ToolSchemas {
  const source: JsonSchema = isSchema(inputSchema) ? (structuredClone(inputSchema) as JsonSchema) : { type: "object" };
  const dialect = dialectOf(source.$schema);
  delete source.$schema;
  if (!isSchema(source.properties)) source.properties = {};
  const checked = structuredClone(source) as ParametersSchema;
  const offered = source as ParametersSchema;
  giveArraysItems(offered);
  closeObjects(checked, new Set());
  // Messages list the parameters from `required`: a schema may leave it out.
  if (!Array.isArray(checked.required)) checked.required = [];
  return { offered, checked, dialect };
}

function dialectOf(declared: JsonValue | undefined): SchemaDialect {
  if (typeof declared !== "string") return "2020-12";
  if (/draft-0[467]\b/.test(declared)) return "draft-07";
  if (declared.includes("2019-09")) return "2019-09";
  return "2020-12";
}

const SUBSCHEMA_MAPS = ["properties", "$defs", "definitions", "dependentSchemas"] as const;
const SUBSCHEMAS = ["items", "additionalItems", "additionalProperties", "contains", "not", "propertyNames"] as const;
const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "prefixItems"] as const;
const OPEN_BY_INTENT = ["additionalProperties", "patternProperties", "unevaluatedProperties"] as const;
const COMBINED = ["allOf", "$ref", "if"] as const;

function closeObjects(schema: JsonSchema, seen: Set<JsonSchema>): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const isObject = schema.type === "object" || (Array.isArray(schema.type) && schema.type.includes("object")) || isSchema(schema.properties);
  if (isObject && !OPEN_BY_INTENT.some((key) => key in schema) && !COMBINED.some((key) => key in schema)) {
    schema.additionalProperties = false;
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = schema[key];
    if (isSchema(map)) for (const child of Object.values(map)) if (isSchema(child)) closeObjects(child, seen);
  }
  for (const key of SUBSCHEMAS) {
    const child = schema[key];
    if (isSchema(child)) closeObjects(child, seen);
    if (key === "items" && Array.isArray(child)) for (const item of child) if (isSchema(item)) closeObjects(item, seen);
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) for (const child of list) if (isSchema(child)) closeObjects(child, seen);
  }
}

/** Keywords whose values are schemas, lists of schemas or maps of names to schemas, in every dialect MCP servers write. */
const SCHEMA_KEYWORDS = new Set([...SUBSCHEMA_MAPS, ...SUBSCHEMAS, ...SUBSCHEMA_LISTS, "patternProperties", "allOf", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties"]);
const MAP_KEYWORDS = new Set<string>([...SUBSCHEMA_MAPS, "patternProperties"]);

/** Adds `items: {}` to each array schema that has no `items`; the strict converter still sees the checked schema, without it. */
function giveArraysItems(schema: JsonSchema): void {
  const isArray = schema.type === "array" || (Array.isArray(schema.type) && schema.type.includes("array"));
  if (isArray && !("items" in schema)) schema.items = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!SCHEMA_KEYWORDS.has(key)) continue;
    const children = Array.isArray(value) ? value : MAP_KEYWORDS.has(key) && isSchema(value) ? Object.values(value) : [value];
    for (const child of children) if (isSchema(child)) giveArraysItems(child);
  }
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The checked schema as the strict converter reads it (draft-07 `definitions`): a 2020-12 `$defs` and
 * the `$ref`s into it renamed. JSON to JSON; only `$ref` keywords change, never a value that merely
 * looks like one (a `const`, `enum`, `default` or `examples` string such as `"#/$defs/x"`).
 */
export function asDefinitionsSchema(schema: ParametersSchema): ParametersSchema {
  if (!isSchema(schema.$defs) || "definitions" in schema) return schema;
  const renamed = withRenamedRefs(schema, false) as ParametersSchema;
  renamed.definitions = renamed.$defs as JsonSchema;
  delete renamed.$defs;
  return renamed;
}

/** Keywords whose values are data, not schemas. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);
/** Keywords whose values map names to schemas: a key there is a name, even `const` or `$ref`. */
const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** A copy with each `#/$defs/…` `$ref` pointing into `#/definitions/…`; `names`: `value` maps names to schemas. */
function withRenamedRefs(value: JsonValue, names: boolean): JsonValue {
  if (Array.isArray(value)) return value.map((entry) => withRenamedRefs(entry, false));
  if (!isSchema(value)) return value;
  // fromEntries makes a `__proto__` key an own member again, as JSON.parse did.
  return Object.fromEntries(
    Object.entries(value).map(([key, child]): [string, JsonValue] => {
      if (names) return [key, withRenamedRefs(child, false)];
      if (key === "$ref" && typeof child === "string" && child.startsWith("#/$defs/")) return [key, `#/definitions/${child.slice("#/$defs/".length)}`];
      return [key, DATA_KEYWORDS.has(key) ? child : withRenamedRefs(child, NAME_MAPS.has(key))];
    }),
  ) as JsonSchema;
}

/**
 * Past these, compiling would hold the agent: Ajv took about 0.1 s per 1,000 subschemas, and 0.5 s for
 * 1,000 `pattern`s but 10 s for 4,000 (its time grows with their square).
 */
const MAX_COMPILED_SCHEMAS = 5_000;
const MAX_COMPILED_PATTERNS = 500;

/** Why `schema` is too large to compile on the agent's thread; undefined when it is not. Walks without recursion. */
export function compileLimitProblem(schema: JsonSchema): string | undefined {
  let schemas = 0;
  let patterns = 0;
  const pending: JsonValue[] = [schema];
  while (pending.length > 0) {
    const value = pending.pop()!;
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    if (!isSchema(value)) continue;
    schemas += 1;
    for (const [key, child] of Object.entries(value)) {
      if (key === "pattern" && typeof child === "string") patterns += 1;
      if (key === "patternProperties" && isSchema(child)) patterns += Object.keys(child).length;
      pending.push(child);
    }
  }
  const limit = "so that compiling it, which cannot be stopped, cannot hold the agent";
  if (patterns > MAX_COMPILED_PATTERNS) return `it holds ${patterns} patterns; sigloop compiles a server's schema of at most ${MAX_COMPILED_PATTERNS}, ${limit}`;
  if (schemas > MAX_COMPILED_SCHEMAS) return `it holds ${schemas} schemas; sigloop compiles a server's schema of at most ${MAX_COMPILED_SCHEMAS}, ${limit}`;
  return undefined;
}
