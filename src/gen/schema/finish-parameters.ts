import type { JsonSchema, JsonValue, ParametersSchema } from "../../shared/schemas-file.js";
import { applyKeyword, isTypedKeyword, normalizeKeyword, placeKeyword, type PlacementProblem } from "./keywords.js";
import { dropUnusedDefinitions, forEachSchema, orderSchemaKeys, settle } from "../../shared/schema-walk.js";

/** Keywords typescript-json-schema copies from member tags as it reads them, to be checked and typed here. */
const TAG_KEYWORDS = [
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
  "minItems", "maxItems", "pattern", "format", "uniqueItems", "deprecated", "example",
];
const TAG_KEYWORD_SET = new Set(TAG_KEYWORDS);

/** A keyword from a parameter's own tags, placed once its schema has its final form. */
export interface ParameterKeyword {
  keyword: string;
  value: JsonValue;
}

/** A tag keyword that could not be placed; `parameter` is set when it came from that parameter's own tags. */
export interface TagProblem extends PlacementProblem {
  parameter?: string;
}

/**
 * Makes a tool's `parameters` self-contained and tidy: the definitions its `$ref`s need live inside it
 * under names that are safe in a JSON pointer, unused ones are dropped, tag keywords have their JSON
 * types and sit where that type is, and keywords are in a fixed order. Typed tag keywords are placed
 * after the whole tree has its strict-Ajv form, since splitting type lists and tuples moves the types
 * they belong with.
 */
export function finishParameters(
  root: ParametersSchema,
  definitions: Record<string, JsonSchema>,
  toolName: string,
  parameterKeywords: ReadonlyMap<string, readonly ParameterKeyword[]> = new Map(),
): { parameters: ParametersSchema; problems: string[]; tagProblems: TagProblem[] } {
  const problems: string[] = [];
  const tagProblems: TagProblem[] = [];
  const renamed = safeDefinitionNames(Object.keys(definitions));
  const withDefinitions: JsonSchema = { ...root };
  if (renamed.size > 0) {
    const local: JsonSchema = {};
    for (const [original, safe] of renamed) local[safe] = definitions[original]!;
    withDefinitions.definitions = local;
  }
  const memberKeywords: { node: JsonSchema; keyword: string; value: JsonValue }[] = [];
  forEachSchema(withDefinitions, (node) => {
    const ref = node.$ref;
    if (typeof ref === "string" && ref.startsWith("#/definitions/")) {
      const name = decodeURIComponent(ref.slice("#/definitions/".length));
      node.$ref = `#/definitions/${renamed.get(name) ?? name}`;
    }
    splitTypeUnions(node);
    orderAlternatives(node);
    const tupleProblem = fixedLengthTuples(node);
    if (tupleProblem !== undefined) problems.push(tupleProblem);
    for (const key of presentTagKeywords(node)) {
      const value = node[key]!;
      delete node[key];
      const result = normalizeKeyword(key, value);
      if ("error" in result) problems.push(result.error);
      else if (isTypedKeyword(result.keyword) && !isTupleLength(node, result.keyword)) memberKeywords.push({ node, keyword: result.keyword, value: result.value });
      else applyKeyword(node, result.keyword, result.value);
    }
  });
  for (const { node, keyword, value } of memberKeywords) {
    const problem = placeKeyword(node, keyword, value, `member "${memberPath(withDefinitions, node) ?? "?"}" of tool "${toolName}"`);
    if (problem !== undefined) tagProblems.push(problem);
  }
  tagProblems.push(...placeParameterKeywords(withDefinitions.properties as { [name: string]: JsonSchema }, parameterKeywords, toolName));
  dropUnusedDefinitions(withDefinitions);
  return { parameters: orderSchemaKeys(withDefinitions) as ParametersSchema, problems, tagProblems };
}

/**
 * Places the typed keywords of each parameter's own tags on its finished schema in `properties`, which
 * gets a copy to change (its parts may be shared with other tools).
 */
export function placeParameterKeywords(
  properties: { [name: string]: JsonSchema },
  parameterKeywords: ReadonlyMap<string, readonly ParameterKeyword[]>,
  toolName: string,
): TagProblem[] {
  const tagProblems: TagProblem[] = [];
  for (const [parameter, keywords] of parameterKeywords) {
    if (properties[parameter] === undefined) continue;
    const schema = structuredClone(properties[parameter]);
    properties[parameter] = schema;
    for (const { keyword, value } of keywords) {
      const problem = placeKeyword(schema, keyword, value, `parameter "${parameter}" of tool "${toolName}"`);
      if (problem !== undefined) tagProblems.push({ ...problem, parameter });
    }
  }
  return tagProblems;
}

/** `finishedSharedSchema`'s results by the shared schema they were made from; `null` when finishing it found a problem. */
const finishedShared = new WeakMap<JsonSchema, JsonSchema | null>();

/**
 * The finished form (as `finishParameters` makes it) of a self-contained schema that tools share, such
 * as the one SchemaEngine hands out for a type described before: made once, then settled and shared.
 * `undefined` when finishing it finds a problem: only finishing it where it sits can name the member.
 */
export function finishedSharedSchema(shared: JsonSchema): JsonSchema | undefined {
  let finished = finishedShared.get(shared);
  if (finished === undefined) {
    const result = finishParameters(structuredClone(shared) as ParametersSchema, {}, "");
    finished = result.problems.length === 0 && result.tagProblems.length === 0 ? settle(result.parameters) : null;
    finishedShared.set(shared, finished);
  }
  return finished ?? undefined;
}

/**
 * A tuple's `minItems`/`maxItems` are its length, written by typescript-json-schema or by
 * `fixedLengthTuples`, not tags to place (a member tag on a tuple is merged into them before we see it).
 */
function isTupleLength(node: JsonSchema, keyword: string): boolean {
  return (keyword === "minItems" || keyword === "maxItems") && node.type === "array" && (Array.isArray(node.items) || (node.items === undefined && node.maxItems === 0));
}

/**
 * `opts.limit` for a member of parameter `opts`, `Tree.left` for a member of a definition: how a
 * message names a nested schema. Only called for a tag that cannot be placed.
 */
function memberPath(schema: JsonValue, target: JsonSchema, path = ""): string | undefined {
  if (schema === target) return path;
  if (Array.isArray(schema)) {
    for (const entry of schema) {
      const found = memberPath(entry, target, path);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isSchemaObject(schema)) return undefined;
  for (const [key, value] of Object.entries(schema)) {
    if ((key === "properties" || key === "definitions") && isSchemaObject(value)) {
      for (const [name, child] of Object.entries(value)) {
        const found = memberPath(child, target, key === "definitions" || path === "" ? name : `${path}.${name}`);
        if (found !== undefined) return found;
      }
    } else if (key !== "enum" && key !== "const" && key !== "default" && key !== "examples") {
      const found = memberPath(value, target, path);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The tag keywords `node` has, in TAG_KEYWORDS order (so problems are listed the same way every time). */
function presentTagKeywords(node: JsonSchema): string[] {
  const present: string[] = [];
  for (const key in node) if (TAG_KEYWORD_SET.has(key)) present.push(key);
  return present.length > 1 ? present.sort((a, b) => TAG_KEYWORDS.indexOf(a) - TAG_KEYWORDS.indexOf(b)) : present;
}

/**
 * The checker lists union members in the order it happened to create their types, which differs
 * between a cold run and a watch-mode update. Sorting enum values and `anyOf` branches makes the bytes
 * depend on the source alone.
 */
function orderAlternatives(node: JsonSchema): void {
  if (Array.isArray(node.enum)) {
    node.enum = [...node.enum].sort((a, b) => byText(typeof a, typeof b) || (typeof a === "number" && typeof b === "number" ? a - b : byText(JSON.stringify(a), JSON.stringify(b))));
  }
  if (Array.isArray(node.anyOf)) {
    const keyed = node.anyOf.map((branch) => ({ branch, key: JSON.stringify(isSchemaObject(branch) ? orderSchemaKeys(branch) : branch) }));
    node.anyOf = keyed.sort((a, b) => byText(a.key, b.key)).map(({ branch }) => branch);
  }
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isSchemaObject(value: JsonValue): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Ajv's strict mode accepts a list of types only as "one type or null"; `["string", "number"]` becomes
 * `anyOf` of single types.
 */
function splitTypeUnions(node: JsonSchema): void {
  const types = node.type;
  if (!Array.isArray(types) || types.filter((type) => type !== "null").length < 2) return;
  delete node.type;
  node.anyOf = [...types.map((type): JsonSchema => ({ type })), ...(Array.isArray(node.anyOf) ? node.anyOf : [])];
}

/**
 * Ajv's strict mode wants every tuple schema to pin its length. A tuple with optional elements becomes
 * one fixed-length tuple per allowed length; a rest element has no such form and is reported.
 */
function fixedLengthTuples(node: JsonSchema): string | undefined {
  const items = node.items;
  if (!Array.isArray(items)) return undefined;
  if (node.additionalItems !== undefined) {
    return "a tuple with a rest element ([a, ...b[]]) has no strict JSON Schema form; use an array or a fixed-length tuple";
  }
  const min = typeof node.minItems === "number" ? node.minItems : 0;
  if (min >= items.length) return undefined;
  const lengths = Array.from({ length: items.length - min + 1 }, (_, i) => min + i);
  delete node.items;
  delete node.minItems;
  delete node.maxItems;
  delete node.type;
  node.anyOf = lengths.map((length): JsonSchema =>
    length === 0 ? { type: "array", maxItems: 0 } : { type: "array", items: items.slice(0, length), minItems: length, maxItems: length });
  return undefined;
}

/** `Tree<string>` → `Tree_string_`, unique within one tool. */
function safeDefinitionNames(names: string[]): Map<string, string> {
  const result = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of [...names].sort()) {
    const base = name.replace(/[^A-Za-z0-9_.-]/g, "_");
    let safe = base;
    for (let n = 2; taken.has(safe); n++) safe = `${base}_${n}`;
    taken.add(safe);
    result.set(name, safe);
  }
  return result;
}
