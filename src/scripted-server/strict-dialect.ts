/**
 * What OpenAI answers a `strict: true` function definition whose `parameters` leave its strict dialect
 * (Structured Outputs' supported subset of JSON Schema), in its own words: one sentence per problem,
 * `In context=('properties', 'x'), 'minLength' is not permitted.`. Written apart from the generator's
 * transform (src/shared/dialects/strict-parameters.ts) so each checks the other. The rules:
 * - the root is `type: "object"`, not `anyOf`;
 * - every object has `additionalProperties: false` and `required` naming exactly its `properties`;
 * - only these keywords: type, properties, required, additionalProperties, items (one schema), enum,
 *   const, anyOf, $ref, $defs/definitions, description, pattern, format (date-time, time, date, duration,
 *   email, hostname, ipv4, ipv6, uuid), minimum, maximum, exclusiveMinimum, exclusiveMaximum,
 *   multipleOf, minItems, maxItems;
 * - a schema says what it is (`type`, `anyOf`, `$ref`, `enum` or `const`); a `$ref` stands alone and
 *   points into the schema;
 * - an array schema has `items` (array-items.ts: refused whether strict or not, and named first);
 * - at most 5000 object properties, 10 levels of nested objects (following `$ref` until it recurses),
 *   1000 enum values, 120,000 characters of property names, definition names, enum values and const
 *   values in all (code points; a value that is not a string counts as its JSON text), and 15,000
 *   characters in one enum of more than 250 strings. OpenAI documents these limits but not the words of
 *   its refusals, so the last two messages are written in the style of the others.
 */
import { missingItemsProblem } from "./array-items.js";

const ALLOWED = new Set([
  "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs", "definitions",
  "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
]);
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const MAX_PROPERTIES = 5000;
const MAX_DEPTH = 10;
const MAX_ENUM_VALUES = 1000;
const MAX_CHARACTERS = 120_000;
const LARGE_ENUM_VALUES = 250;
const MAX_LARGE_ENUM_CHARACTERS = 15_000;

type Schema = Record<string, unknown>;
type Context = readonly (string | number)[];
interface Counts {
  properties: number;
  enumValues: number;
  characters: number;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function where(context: Context): string {
  const parts = context.map((part) => (typeof part === "number" ? String(part) : `'${part}'`));
  return `In context=(${parts.join(", ")}${parts.length === 1 ? "," : ""})`;
}

/** Every way `parameters` leaves the strict dialect (empty: OpenAI accepts it). */
export function strictDialectViolations(parameters: unknown): string[] {
  if (!isSchema(parameters) || parameters.type !== "object") {
    return [`schema must be a JSON Schema of 'type: "object"', got 'type: "${isSchema(parameters) ? String(parameters.type ?? "None") : "None"}"'.`];
  }
  if ("anyOf" in parameters) return [`${where([])}, 'anyOf' is not permitted at the root.`];
  const missingItems = missingItemsProblem(parameters);
  const problems: string[] = missingItems !== undefined ? [missingItems] : [];
  const counts: Counts = { properties: 0, enumValues: 0, characters: 0 };
  checkNode(parameters, [], parameters, problems, counts);
  if (counts.properties > MAX_PROPERTIES) problems.push(`Expected at most ${MAX_PROPERTIES} object properties in total, but received ${counts.properties}.`);
  if (counts.enumValues > MAX_ENUM_VALUES) problems.push(`Expected at most ${MAX_ENUM_VALUES} enum values in total within a single schema, but received ${counts.enumValues}.`);
  if (counts.characters > MAX_CHARACTERS) {
    problems.push(`Expected at most ${MAX_CHARACTERS} characters in total in property names, definition names, enum values and const values, but received ${counts.characters}.`);
  }
  const depth = objectDepth(parameters, parameters, new Set());
  if (depth > MAX_DEPTH) problems.push(`Expected at most ${MAX_DEPTH} levels of nesting, but received ${depth}.`);
  return problems;
}

/** Characters as the limits count them: code points of a string, of the JSON text of anything else. */
function characterCount(value: unknown): number {
  return [...(typeof value === "string" ? value : JSON.stringify(value) ?? "")].length;
}

function checkNode(node: Schema, context: Context, root: Schema, problems: string[], counts: Counts): void {
  const at = where(context);
  for (const key of Object.keys(node)) if (!ALLOWED.has(key)) problems.push(`${at}, '${key}' is not permitted.`);
  if (typeof node.$ref === "string") {
    const siblings = Object.keys(node).filter((key) => key !== "$ref");
    if (siblings.length > 0) problems.push(`${at}, $ref cannot have keywords {${siblings.map((key) => `'${key}'`).join(", ")}}.`);
    if (resolveRef(node.$ref, root) === undefined) problems.push(`${at}, reference to component '${node.$ref}' which was not found in the schema.`);
    return;
  }
  if (!("type" in node) && !("anyOf" in node) && !("enum" in node) && !("const" in node)) problems.push(`${at}, schema must have a 'type' key.`);
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  for (const type of types) if (typeof type !== "string" || !TYPES.has(type)) problems.push(`${at}, type ${JSON.stringify(type)} is not a JSON type.`);
  if (typeof node.format === "string" && !FORMATS.has(node.format)) problems.push(`${at}, 'format' ${JSON.stringify(node.format)} is not permitted.`);
  if (node.const !== undefined) counts.characters += characterCount(node.const);
  if (Array.isArray(node.enum)) {
    const characters = node.enum.reduce((sum: number, value) => sum + characterCount(value), 0);
    counts.enumValues += node.enum.length;
    counts.characters += characters;
    const strings = node.enum.every((value) => typeof value === "string");
    if (strings && node.enum.length > LARGE_ENUM_VALUES && characters > MAX_LARGE_ENUM_CHARACTERS) {
      problems.push(`${at}, Expected at most ${MAX_LARGE_ENUM_CHARACTERS} characters in total in the values of an enum of more than ${LARGE_ENUM_VALUES} strings, but received ${characters}.`);
    }
  }

  const properties = isSchema(node.properties) ? node.properties : undefined;
  if (properties !== undefined || types.includes("object")) {
    if (node.additionalProperties !== false) problems.push(`${at}, 'additionalProperties' is required to be supplied and to be false.`);
    const keys = Object.keys(properties ?? {});
    counts.properties += keys.length;
    for (const key of keys) counts.characters += characterCount(key);
    const required = Array.isArray(node.required) ? node.required : undefined;
    const missing = keys.filter((key) => !required?.includes(key));
    if (required === undefined || missing.length > 0) {
      problems.push(`${at}, 'required' is required to be supplied and to be an array including every key in properties.${missing.length > 0 ? ` Missing '${missing[0]}'.` : ""}`);
    }
    const extra = (required ?? []).find((key) => typeof key !== "string" || !keys.includes(key));
    if (extra !== undefined) problems.push(`${at}, Extra required key '${String(extra)}' supplied.`);
    for (const key of keys) visit(properties![key], [...context, "properties", key], root, problems, counts);
  }
  if ("items" in node) {
    if (isSchema(node.items)) visit(node.items, [...context, "items"], root, problems, counts);
    else problems.push(`${at}, 'items' must be one schema (tuples are not permitted).`);
  }
  if ("anyOf" in node) {
    if (!Array.isArray(node.anyOf) || node.anyOf.length === 0) problems.push(`${at}, 'anyOf' must be a non-empty array.`);
    else node.anyOf.forEach((branch, index) => visit(branch, [...context, "anyOf", index], root, problems, counts));
  }
  for (const key of ["$defs", "definitions"]) {
    const definitions = node[key];
    if (!isSchema(definitions)) continue;
    for (const [name, definition] of Object.entries(definitions)) {
      counts.characters += characterCount(name);
      visit(definition, [...context, key, name], root, problems, counts);
    }
  }
}

function visit(value: unknown, context: Context, root: Schema, problems: string[], counts: Counts): void {
  if (isSchema(value)) checkNode(value, context, root, problems, counts);
  else problems.push(`${where(context)}, a schema must be an object.`);
}

function resolveRef(ref: string, root: Schema): Schema | undefined {
  if (ref === "#") return root;
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (match === null) return undefined;
  const definitions = root[match[1]!];
  const target = isSchema(definitions) ? definitions[decodeURIComponent(match[2]!)] : undefined;
  return isSchema(target) ? target : undefined;
}

/** Levels of objects below and including `node`; a `$ref` already on the way recurses and adds nothing. */
function objectDepth(node: Schema, root: Schema, onTheWay: ReadonlySet<string>): number {
  if (typeof node.$ref === "string") {
    const target = resolveRef(node.$ref, root);
    if (target === undefined || onTheWay.has(node.$ref)) return 0;
    return objectDepth(target, root, new Set([...onTheWay, node.$ref]));
  }
  const children: unknown[] = [...Object.values(isSchema(node.properties) ? node.properties : {}), node.items, ...(Array.isArray(node.anyOf) ? node.anyOf : [])];
  const below = children.filter(isSchema).reduce((max: number, child) => Math.max(max, objectDepth(child, root, onTheWay)), 0);
  return below + (isSchema(node.properties) ? 1 : 0);
}
