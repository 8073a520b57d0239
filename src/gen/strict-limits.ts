/**
 * The size limits of OpenAI's strict dialect, measured on a strict `parameters` schema as it will be
 * sent. Depth counts object schemas (those with `properties`) on the way down from the root, through
 * `properties`, `items`, `anyOf` and `$ref` (a `$ref` back into a definition already on the way is
 * recursion, which the dialect allows, and adds nothing); the root is level 1. Properties and enum values
 * are counted once each where they are written, definitions included.
 */
import type { JsonSchema, JsonValue } from "../shared/schemas-file.js";
import { forEachSchema } from "./schema-walk.js";

export const STRICT_LIMITS = { properties: 5000, depth: 10, enumValues: 1000 } as const;

function isSchema(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One sentence per limit the schema exceeds (empty when it fits). */
export function strictLimitProblems(root: JsonSchema): string[] {
  let properties = 0;
  let enumValues = 0;
  forEachSchema(root, (node) => {
    if (isSchema(node.properties)) properties += Object.keys(node.properties).length;
    if (Array.isArray(node.enum)) enumValues += node.enum.length;
  });
  const problems: string[] = [];
  if (properties > STRICT_LIMITS.properties) problems.push(`it has ${properties} object properties in all; strict mode allows ${STRICT_LIMITS.properties}`);
  const depth = objectDepth(root, root, new Set());
  if (depth > STRICT_LIMITS.depth) problems.push(`it nests objects ${depth} levels deep; strict mode allows ${STRICT_LIMITS.depth}`);
  if (enumValues > STRICT_LIMITS.enumValues) problems.push(`it has ${enumValues} enum values in all; strict mode allows ${STRICT_LIMITS.enumValues}`);
  return problems;
}

function objectDepth(node: JsonSchema, root: JsonSchema, onTheWay: ReadonlySet<string>): number {
  if (typeof node.$ref === "string") {
    const name = decodeURIComponent(node.$ref.slice(node.$ref.lastIndexOf("/") + 1));
    const definitions = root.definitions;
    const target = isSchema(definitions) ? definitions[name] : undefined;
    if (onTheWay.has(name) || !isSchema(target)) return 0;
    return objectDepth(target, root, new Set([...onTheWay, name]));
  }
  const children: JsonSchema[] = [];
  if (isSchema(node.properties)) children.push(...Object.values(node.properties).filter(isSchema));
  if (isSchema(node.items)) children.push(node.items);
  if (Array.isArray(node.anyOf)) children.push(...node.anyOf.filter(isSchema));
  const below = children.reduce((max, child) => Math.max(max, objectDepth(child, root, onTheWay)), 0);
  return below + (isSchema(node.properties) ? 1 : 0);
}
