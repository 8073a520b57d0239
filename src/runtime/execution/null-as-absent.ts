/**
 * `null` for a member that is optional in TypeScript means "not given". Strict mode makes the model send
 * every optional member, as `null` when it has no value; many models send `null` for skipped parameters
 * in lenient mode too. Before validation, such a `null` is deleted from the arguments, so the function
 * receives `undefined` and its own default applies (also for `x?: T | null`: a tool that must tell an
 * explicit `null` apart declares the parameter required as `T | null`). A `null` for a required member is
 * left for the validator to judge.
 *
 * A member counts as optional when the lenient schema lists it in `properties` but not in `required`, at
 * any depth the schema leads to: through `properties`, `additionalProperties`, `items` (a tuple's
 * positions too: `prefixItems` then `items`, or draft-07's `items` list then `additionalItems`), `$ref`,
 * and through an `anyOf`/`oneOf` by the branches the value's shape fits (its JSON type, its keys, its
 * members' and elements' shapes at every depth, `const`s, its length; nested unions count as one, each
 * alternative once). Where several branches fit, a `null` is deleted only for a member every one of them
 * calls optional, and a member or element is read as any of their schemas for it; where one of them
 * leaves it open, or none fits, nothing is touched.
 *
 * A `$ref` is a local JSON pointer into the parameters schema, resolved as Ajv resolves it: draft-07's
 * `#/definitions/Name` (what gen writes), 2020-12's `#/$defs/Name` (MCP's default), a pointer deeper in
 * (`#/$defs/a/properties/b`, `#/properties/t/prefixItems/1` through array positions, `~0`/`~1` and
 * percent escapes decoded) and `#`, the whole schema. Any other
 * `$ref` (another document, an anchor) leads nowhere: nothing below it is touched.
 */
import type { JsonSchema, JsonValue, ParametersSchema } from "../../shared/schemas-file.js";
import { itemSchemaAt, pointerSegments, valueAtPointer } from "../../shared/schema-walk.js";

/** Arguments are untrusted: deeper than this, nothing is looked at (the validator still judges it all). */
const MAX_DEPTH = 200;
/** `$ref` hops followed from one value before giving up (a definition that only refers to itself). */
const MAX_REF_HOPS = 32;

function isSchema(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deletes, in place, every `null` the schema marks as an optional member (see the module comment). */
export function dropOptionalNulls(args: Record<string, unknown>, parameters: ParametersSchema): void {
  visit(args, parameters, { root: parameters, alternatives: new Map(), fitted: new Map() }, 0);
}

function visit(value: unknown, schema: JsonSchema, reading: Reading, depth: number): void {
  if (depth > MAX_DEPTH || typeof value !== "object" || value === null) return;
  const fitting = fittingAlternatives(value, resolve(schema, reading.root), reading);
  if (fitting.length === 0) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      const itemSchema = eitherOf(fitting.map((alternative) => itemSchemaAt(alternative, index)));
      if (itemSchema !== undefined) visit(item, itemSchema, reading, depth + 1);
    });
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (record[key] === null && fitting.every((alternative) => isOptionalMember(alternative, key))) delete record[key];
    else {
      const member = eitherOf(fitting.map((alternative) => (isSchema(alternative.properties) && Object.hasOwn(alternative.properties, key) ? alternative.properties[key] : alternative.additionalProperties)));
      if (member !== undefined) visit(record[key], member, reading, depth + 1);
    }
  }
}

/**
 * What a member or element is read with when several branches fit its container: any of theirs (the
 * one schema when one fits). `undefined` when one of them leaves it open: nothing below is touched then.
 */
function eitherOf(schemas: (JsonValue | undefined)[]): JsonSchema | undefined {
  if (!schemas.every(isSchema)) return undefined;
  return schemas.length === 1 ? schemas[0] : { anyOf: schemas };
}

function isOptionalMember(schema: JsonSchema, key: string): boolean {
  const required = Array.isArray(schema.required) ? schema.required : [];
  return isSchema(schema.properties) && Object.hasOwn(schema.properties, key) && !required.includes(key);
}

function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema | undefined {
  let current: JsonSchema | undefined = schema;
  for (let hops = 0; current !== undefined && typeof current.$ref === "string"; hops++) {
    if (hops >= MAX_REF_HOPS) return undefined;
    const target = refTarget(root, current.$ref);
    current = isSchema(target) ? target : undefined;
  }
  return current;
}

/** What a local `$ref` points at in the parameters schema, read as the strict converter and Ajv read it. */
function refTarget(root: JsonSchema, ref: string): JsonValue | undefined {
  const segments = pointerSegments(ref);
  return segments === undefined ? undefined : valueAtPointer(root, segments);
}

/** One reading of arguments: the schema's root, and what was found out already (each value, schema pair once). */
interface Reading {
  root: JsonSchema;
  alternatives: Map<JsonSchema, JsonSchema[]>;
  fitted: Map<object, Map<JsonSchema, boolean>>;
}

/**
 * A schema's alternatives: itself, or its union's, nested unions (through `$ref`s too) read as one flat
 * union. An alternative reached along two routes is one alternative; a union that leads back to itself
 * adds none.
 */
function alternativesOf(schema: JsonSchema, reading: Reading): JsonSchema[] {
  const known = reading.alternatives.get(schema);
  if (known !== undefined) return known;
  const alternatives = new Set<JsonSchema>();
  const seen = new Set<JsonSchema>();
  const pending = [schema];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
    if (branches === undefined) alternatives.add(node);
    else pending.push(...branches.filter(isSchema).map((branch) => resolve(branch, reading.root)).filter((branch) => branch !== undefined));
  }
  const found = [...alternatives];
  reading.alternatives.set(schema, found);
  return found;
}

/** The schemas that may describe this object or array: the schema itself, or the union's alternatives that fit. */
function fittingAlternatives(value: object, schema: JsonSchema | undefined, reading: Reading): JsonSchema[] {
  if (schema === undefined) return [];
  const alternatives = alternativesOf(schema, reading);
  if (alternatives.length === 1 && alternatives[0] === schema) return [schema];
  return alternatives.filter((alternative) => typeFits(value, alternative) && fits(value, alternative, reading, 0));
}

/** Whether a value may have the shape a schema (any of its alternatives) describes; what says nothing does not object. */
function admits(value: unknown, schema: JsonValue | undefined, reading: Reading, depth: number): boolean {
  if (schema === false) return false;
  const resolved = isSchema(schema) ? resolve(schema, reading.root) : undefined;
  if (resolved === undefined) return true;
  return alternativesOf(resolved, reading).some(
    (alternative) => typeFits(value, alternative) && (typeof value !== "object" || value === null || fits(value, alternative, reading, depth)),
  );
}

/** Whether a value has the JSON type (or `const`) a schema declares, looked at without descending. */
function typeFits(value: unknown, schema: JsonSchema): boolean {
  if ("const" in schema) return typeof schema.const === "object" && schema.const !== null ? typeof value === "object" : schema.const === value;
  const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined;
  if (types === undefined) return true;
  const type = value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value;
  return types.includes(type) || (type === "integer" && types.includes("number"));
}

/**
 * Whether an object or array fits a (non-union) schema's shape, at every depth: its JSON type, its keys,
 * its members' and elements' shapes, its length. A `null` for an optional member is its absence, which
 * the schema allows. Past `MAX_DEPTH` nothing objects.
 */
function fits(value: object, schema: JsonSchema, reading: Reading, depth: number): boolean {
  if (depth > MAX_DEPTH) return true;
  let known = reading.fitted.get(value);
  if (known === undefined) reading.fitted.set(value, (known = new Map()));
  const found = known.get(schema);
  if (found !== undefined) return found;
  const result = shapeFits(value, schema, reading, depth);
  known.set(schema, result);
  return result;
}

function shapeFits(value: object, schema: JsonSchema, reading: Reading, depth: number): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (Array.isArray(value)) {
    if (!types.includes("array") || (typeof schema.maxItems === "number" && value.length > schema.maxItems)) return false;
    return value.every((item, index) => admits(item, itemSchemaAt(schema, index), reading, depth + 1));
  }
  if (!types.includes("object") && !isSchema(schema.properties)) return false;
  const record = value as Record<string, unknown>;
  const properties = isSchema(schema.properties) ? schema.properties : {};
  if (schema.additionalProperties === false && Object.keys(record).some((key) => !Object.hasOwn(properties, key))) return false;
  const required = Array.isArray(schema.required) ? schema.required : [];
  if (required.some((key) => typeof key !== "string" || !Object.hasOwn(record, key))) return false;
  return Object.keys(record).every((key) => {
    if (!Object.hasOwn(properties, key)) return admits(record[key], schema.additionalProperties, reading, depth + 1);
    if (record[key] === null && !required.includes(key)) return true;
    return admits(record[key], properties[key], reading, depth + 1);
  });
}
