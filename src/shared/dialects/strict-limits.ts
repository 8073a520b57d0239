/**
 * The size limits of OpenAI's strict dialect (Structured Outputs' "Supported schemas", as documented in
 * 2026), measured on a strict `parameters` schema as it will be sent:
 * - at most 5000 object properties and 1000 enum values in all, each counted once where it is written,
 *   definitions included;
 * - at most 10 levels of nested objects. Depth counts object schemas (those with `properties`) on the way
 *   down from the root, through `properties`, `items`, `anyOf` and `$ref` (a `$ref` back into a
 *   definition already on the way is recursion, which the dialect allows, and adds nothing); the root is
 *   level 1. Schemas whose `$ref`s lead along too many paths to measure in bounded time (recursion
 *   reached by many routes) are a problem of their own;
 * - at most 120,000 characters in all property names, definition names, enum values and const values
 *   (characters are code points; a value that is not a string counts as its JSON text);
 * - an enum of more than 250 strings holds at most 15,000 characters.
 * Each problem names the parameter that holds the most of what was exceeded (its own schema and the
 * definitions it reaches), so gen can point at it; none when only the parameters' own count is too many.
 */
import type { JsonSchema, JsonValue } from "../schemas-file.js";
import { childSchemas, definitionRefName, forEachSchema, isSettled } from "../schema-walk.js";

export const STRICT_LIMITS = {
  properties: 5000,
  depth: 10,
  enumValues: 1000,
  characters: 120_000,
  largeEnumValues: 250,
  largeEnumCharacters: 15_000,
} as const;

/** A limit exceeded: `reason` reads after `parameter "<parameter>"`, or after "its parameters" when none is named. */
export interface LimitProblem {
  parameter?: string;
  reason: string;
}

/** What the limits count, over a whole schema or what one parameter reaches. */
interface Size {
  properties: number;
  enumValues: number;
  characters: number;
  /** The first enum of more than 250 strings over the character limit, as [values, characters]. */
  largeEnum?: [number, number];
}

function isSchema(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function characters(value: JsonValue): number {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  // Code points: a surrogate pair is one character (as `for…of` counts), a lone surrogate one too.
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        i += 1;
      }
    }
  }
  return count;
}

/** The definition a strict `$ref` (always `#/definitions/<name>`) names, if the schema has it. */
function definitionOf(root: JsonSchema, ref: string): { name: string; target: JsonSchema } | undefined {
  const name = definitionRefName(ref);
  const definitions = root.definitions;
  const target = name !== undefined && isSchema(definitions) && Object.hasOwn(definitions, name) ? definitions[name] : undefined;
  return name !== undefined && isSchema(target) ? { name, target } : undefined;
}

/** Adds what one schema node holds itself (not its children) to `size`. */
function addNode(size: Size, node: JsonSchema): void {
  if (isSchema(node.properties)) {
    const names = Object.keys(node.properties);
    size.properties += names.length;
    for (const name of names) size.characters += characters(name);
  }
  if (node.const !== undefined) size.characters += characters(node.const);
  if (!Array.isArray(node.enum)) return;
  const enumCharacters = node.enum.reduce((sum: number, value) => sum + characters(value), 0);
  size.enumValues += node.enum.length;
  size.characters += enumCharacters;
  const strings = node.enum.every((value) => typeof value === "string");
  const large = strings && node.enum.length > STRICT_LIMITS.largeEnumValues && enumCharacters > STRICT_LIMITS.largeEnumCharacters;
  if (large && size.largeEnum === undefined) size.largeEnum = [node.enum.length, enumCharacters];
}

/** The whole schema: every node once, definitions and their names included. */
function wholeSize(root: JsonSchema): Size {
  const size = subtreeSize(root);
  if (!isSchema(root.definitions)) return size;
  const whole = { ...size };
  for (const name of Object.keys(root.definitions)) whole.characters += characters(name);
  return whole;
}

/** `subtreeSize` of settled schemas, which tools share (`$ref`-free: their size is their own). */
const settledSizes = new WeakMap<JsonSchema, Size>();

/** What a schema and the schemas nested in it hold (not following `$ref`); not to be changed. */
function subtreeSize(node: JsonSchema): Size {
  const known = settledSizes.get(node);
  if (known !== undefined) return known;
  const size: Size = { properties: 0, enumValues: 0, characters: 0 };
  addNode(size, node);
  for (const child of childSchemas(node)) {
    const inner = subtreeSize(child);
    size.properties += inner.properties;
    size.enumValues += inner.enumValues;
    size.characters += inner.characters;
    size.largeEnum ??= inner.largeEnum;
  }
  if (isSettled(node)) settledSizes.set(node, size);
  return size;
}

/** What one parameter's schema holds, following each `$ref` into its definition once (its name counted). */
function reachedSize(schema: JsonSchema, root: JsonSchema): Size {
  const size: Size = { properties: 0, enumValues: 0, characters: 0 };
  const reached = new Set<string>();
  const walk = (node: JsonSchema): void =>
    forEachSchema(node, (inner) => {
      addNode(size, inner);
      const definition = typeof inner.$ref === "string" ? definitionOf(root, inner.$ref) : undefined;
      if (definition === undefined || reached.has(definition.name)) return;
      reached.add(definition.name);
      size.characters += characters(definition.name);
      walk(definition.target);
    });
  walk(schema);
  return size;
}

/** One problem per limit the schema exceeds (empty when it fits). */
export function strictLimitProblems(root: JsonSchema): LimitProblem[] {
  const total = wholeSize(root);
  const walk = depthWalk(root);
  const depth = objectDepth(root, walk)?.depth;
  if (depth === undefined) return [{ reason: `have $refs that lead along too many paths to measure how deep their objects nest; strict mode allows ${STRICT_LIMITS.depth} levels` }];
  if (depth <= STRICT_LIMITS.depth && total.properties <= STRICT_LIMITS.properties && total.enumValues <= STRICT_LIMITS.enumValues
    && total.characters <= STRICT_LIMITS.characters && total.largeEnum === undefined) return [];
  // Past a limit (rare): measure each parameter to name the one to blame.
  const parameters = Object.entries(isSchema(root.properties) ? root.properties : {})
    .filter((entry): entry is [string, JsonSchema] => isSchema(entry[1]))
    .map(([name, schema]) => ({ name, size: reachedSize(schema, root), depth: 1 + (objectDepth(schema, { ...walk, steps: 0 })?.depth ?? 0) }));
  /** The parameter holding the most of a count, when one holds any. */
  const most = (count: (size: Size) => number): { parameter?: string; own: number } => {
    const top = parameters.reduce<(typeof parameters)[number] | undefined>((best, entry) => (best === undefined || count(entry.size) > count(best.size) ? entry : best), undefined);
    return top === undefined || count(top.size) === 0 ? { own: 0 } : { parameter: top.name, own: count(top.size) };
  };
  const totalOver = (count: (size: Size) => number, limit: number, what: string): LimitProblem => {
    const { parameter, own } = most(count);
    return parameter === undefined
      ? { reason: `have ${count(total)} ${what} in all; strict mode allows ${limit}` }
      : { parameter, reason: `holds ${own} of the tool's ${count(total)} ${what}; strict mode allows ${limit} in all` };
  };

  const problems: LimitProblem[] = [];
  const deepest = parameters.reduce<(typeof parameters)[number] | undefined>((best, entry) => (best === undefined || entry.depth > best.depth ? entry : best), undefined);
  if (depth > STRICT_LIMITS.depth && deepest !== undefined) {
    problems.push({ parameter: deepest.name, reason: `nests objects ${deepest.depth} levels deep, the parameters object counted as the first; strict mode allows ${STRICT_LIMITS.depth}` });
  }
  if (total.properties > STRICT_LIMITS.properties) problems.push(totalOver((size) => size.properties, STRICT_LIMITS.properties, "object properties"));
  if (total.enumValues > STRICT_LIMITS.enumValues) problems.push(totalOver((size) => size.enumValues, STRICT_LIMITS.enumValues, "enum values"));
  if (total.characters > STRICT_LIMITS.characters) {
    problems.push(totalOver((size) => size.characters, STRICT_LIMITS.characters, "characters of property names, definition names, enum values and const values"));
  }
  const large = parameters.find((entry) => entry.size.largeEnum !== undefined);
  if (large?.size.largeEnum !== undefined) {
    const [values, count] = large.size.largeEnum;
    problems.push({
      parameter: large.name,
      reason: `has an enum of ${values} strings with ${count} characters in all; strict mode allows ${STRICT_LIMITS.largeEnumCharacters} characters in an enum of more than ${STRICT_LIMITS.largeEnumValues} strings`,
    });
  }
  return problems;
}

/** `objectDepth` of settled schemas, which have no `$ref` to follow. */
const settledDepths = new WeakMap<JsonSchema, number>();

/** `$ref`s `objectDepth` may follow in one measure: recursive definitions reached by many routes can
 * lead along exponentially many paths, and the schema may be a server's. */
const DEPTH_STEPS = 100_000;

/** One measure of depths in a strict schema: the definitions on the way, and those measured already. */
interface DepthWalk {
  root: JsonSchema;
  onTheWay: Map<string, number>;
  /** A definition's depth, kept when it does not depend on the way it was reached (no recursion above it). */
  measured: Map<string, number>;
  steps: number;
}

/** A depth, and the lowest position on the way of a definition it recursed into (`Infinity`: none). */
interface Depth {
  depth: number;
  recursesAt: number;
}

function depthWalk(root: JsonSchema): DepthWalk {
  return { root, onTheWay: new Map(), measured: new Map(), steps: 0 };
}

/** `undefined` once the walk has followed more than `DEPTH_STEPS` `$ref`s. */
function objectDepth(node: JsonSchema, walk: DepthWalk): Depth | undefined {
  const known = settledDepths.get(node);
  if (known !== undefined) return { depth: known, recursesAt: Infinity };
  if (typeof node.$ref === "string") {
    if ((walk.steps += 1) > DEPTH_STEPS) return undefined;
    const definition = definitionOf(walk.root, node.$ref);
    if (definition === undefined) return { depth: 0, recursesAt: Infinity };
    const position = walk.onTheWay.get(definition.name);
    if (position !== undefined) return { depth: 0, recursesAt: position };
    const measured = walk.measured.get(definition.name);
    if (measured !== undefined) return { depth: measured, recursesAt: Infinity };
    const here = walk.onTheWay.size;
    walk.onTheWay.set(definition.name, here);
    const inner = objectDepth(definition.target, walk);
    walk.onTheWay.delete(definition.name);
    if (inner === undefined) return undefined;
    if (inner.recursesAt < here) return inner;
    walk.measured.set(definition.name, inner.depth);
    return { depth: inner.depth, recursesAt: Infinity };
  }
  const children: JsonSchema[] = [];
  if (isSchema(node.properties)) children.push(...Object.values(node.properties).filter(isSchema));
  if (isSchema(node.items)) children.push(node.items);
  if (Array.isArray(node.anyOf)) children.push(...node.anyOf.filter(isSchema));
  let below = 0;
  let recursesAt = Infinity;
  for (const child of children) {
    const inner = objectDepth(child, walk);
    if (inner === undefined) return undefined;
    below = Math.max(below, inner.depth);
    recursesAt = Math.min(recursesAt, inner.recursesAt);
  }
  const depth = below + (isSchema(node.properties) ? 1 : 0);
  if (isSettled(node)) settledDepths.set(node, depth);
  return { depth, recursesAt };
}
