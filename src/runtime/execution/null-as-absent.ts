/**
 * `null` for a member that is optional in TypeScript means "not given". Strict mode makes the model send
 * every optional member, as `null` when it has no value; many models send `null` for skipped parameters
 * in lenient mode too. Before validation, such a `null` is deleted from the arguments, so the function
 * receives `undefined` and its own default applies (also for `x?: T | null`: a tool that must tell an
 * explicit `null` apart declares the parameter required as `T | null`). A `null` for a required member is
 * left for the validator to judge.
 *
 * A member counts as optional when the lenient schema lists it in `properties` but not in `required`, at
 * any depth the schema leads to without ambiguity: through `properties`, `additionalProperties`, `items`
 * (a tuple's positions too: `prefixItems` then `items`, or draft-07's `items` list then `additionalItems`),
 * `$ref`, and through an `anyOf`/`oneOf` only when exactly one branch fits the value's shape (its JSON type,
 * its keys, the `const` of its required members). Where it is ambiguous nothing is touched.
 *
 * A `$ref` is a local JSON pointer into the parameters schema, resolved as Ajv resolves it: draft-07's
 * `#/definitions/Name` (what gen writes), 2020-12's `#/$defs/Name` (MCP's default), a pointer deeper in
 * (`#/$defs/a/properties/b`, `~0`/`~1` and percent escapes decoded) and `#`, the whole schema. Any other
 * `$ref` (another document, an anchor) leads nowhere: nothing below it is touched.
 */
import type { JsonSchema, JsonValue, ParametersSchema } from "../../shared/schemas-file.js";
import { itemSchemaAt } from "../../shared/schema-walk.js";
import { resolveLocalRef } from "./describe-json.js";

/** Arguments are untrusted: deeper than this, nothing is looked at (the validator still judges it all). */
const MAX_DEPTH = 200;
/** `$ref` hops followed from one value before giving up (a definition that only refers to itself). */
const MAX_REF_HOPS = 32;

function isSchema(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deletes, in place, every `null` the schema marks as an optional member (see the module comment). */
export function dropOptionalNulls(args: Record<string, unknown>, parameters: ParametersSchema): void {
  visit(args, parameters, parameters, 0);
}

function visit(value: unknown, schema: JsonSchema, root: JsonSchema, depth: number): void {
  if (depth > MAX_DEPTH || typeof value !== "object" || value === null) return;
  const chosen = choose(value, resolve(schema, root), root);
  if (chosen === undefined) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      const itemSchema = itemSchemaAt(chosen, index);
      if (isSchema(itemSchema)) visit(item, itemSchema, root, depth + 1);
    });
    return;
  }
  const record = value as Record<string, unknown>;
  const properties = isSchema(chosen.properties) ? chosen.properties : {};
  const required = Array.isArray(chosen.required) ? chosen.required : [];
  for (const key of Object.keys(record)) {
    const member = Object.hasOwn(properties, key) ? properties[key] : chosen.additionalProperties;
    if (record[key] === null && Object.hasOwn(properties, key) && !required.includes(key)) delete record[key];
    else if (isSchema(member)) visit(record[key], member, root, depth + 1);
  }
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

/** What a local `$ref` points at in the parameters schema; `undefined` for any other (or a malformed escape). */
function refTarget(root: JsonSchema, ref: string): JsonValue | undefined {
  if (ref === "#") return root;
  try {
    return resolveLocalRef(root, ref);
  } catch {
    return undefined;
  }
}

/** The one schema that describes this object or array: the schema itself, or the only union branch that fits. */
function choose(value: object, schema: JsonSchema | undefined, root: JsonSchema): JsonSchema | undefined {
  if (schema === undefined) return undefined;
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (branches === undefined) return schema;
  const fitting = branches
    .filter(isSchema)
    .map((branch) => choose(value, resolve(branch, root), root))
    .filter((branch): branch is JsonSchema => branch !== undefined && fits(value, branch));
  return fitting.length === 1 ? fitting[0] : undefined;
}

function fits(value: object, schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (Array.isArray(value)) return types.includes("array");
  if (!types.includes("object") && !isSchema(schema.properties)) return false;
  const record = value as Record<string, unknown>;
  const properties = isSchema(schema.properties) ? schema.properties : {};
  if (schema.additionalProperties === false && Object.keys(record).some((key) => !Object.hasOwn(properties, key))) return false;
  const required = Array.isArray(schema.required) ? schema.required : [];
  if (required.some((key) => typeof key !== "string" || !Object.hasOwn(record, key))) return false;
  // A required member with a `const` tells a union's branches apart (`kind: "circle"`).
  return required.every((key) => {
    const property = typeof key === "string" && Object.hasOwn(properties, key) ? properties[key] : undefined;
    return !isSchema(property) || !("const" in property) || property.const === record[key as string];
  });
}
