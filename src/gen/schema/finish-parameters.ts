import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
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
 * types and sit where that type is, `{}` admits every JSON value but null, every array schema has
 * `items`, and keywords are in a fixed order. Typed tag keywords are placed after the whole tree has
 * its strict-Ajv form, since splitting type lists and tuples moves the types they belong with.
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
    anyValueButNull(node);
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
  forEachSchema(withDefinitions, anyItems);
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

/** A `default` that its own schema (the schema it sits on, without it) refuses. */
export interface BrokenDefault {
  /** `limit` for a parameter's own default, `opts.size` for a member's, `Tree.left` for one in a definition. */
  path: string;
  /** Whether it is the default of a property of the arguments object (a parameter) itself. */
  parameter: boolean;
  value: JsonValue;
  /** What Ajv says, as `must be >= 1; must NOT have more than 3 characters`. */
  reason: string;
}

const require = createRequire(import.meta.url);

/**
 * Checks every `default` in finished parameters against the schema it sits on: a default that breaks
 * its own tags (`@minimum 1` with `= 0`) misleads the model and every reader of the schema, and
 * TypeScript cannot see tags. Ajv is loaded (with `require`: it is CommonJS) when the first default is
 * met, and one check serves a whole run; validators are kept by schema text, as tools share parameter
 * types.
 */
export class DefaultCheck {
  private ajv: Ajv | undefined;
  private readonly validators = new Map<string, ValidateFunction>();

  /**
   * `typeChecked`: the members (`limit`, `opts.size`) whose default is an initializer the compiler has
   * checked against their type. Where the compiler judges that type as the schema does
   * (compilerJudgesAlike), the default cannot break it, so Ajv (about 50 ms to load) is not asked:
   * most tools never load it.
   */
  brokenDefaults(parameters: ParametersSchema, typeChecked: ReadonlySet<string>): BrokenDefault[] {
    const broken: BrokenDefault[] = [];
    const properties = parameters.properties as { [name: string]: JsonSchema };
    forEachSchema(parameters, (node) => {
      if (node === parameters || !("default" in node)) return;
      const path = memberPath(parameters, node) ?? "?";
      if (typeChecked.has(path) && compilerJudgesAlike(node)) return;
      const reason = this.refusal(node, parameters.definitions);
      if (reason === undefined) return;
      broken.push({ path, parameter: properties[path] === node, value: node.default!, reason });
    });
    return broken;
  }

  /** Why `node`'s schema refuses its default, or undefined when it accepts it. */
  private refusal(node: JsonSchema, definitions: JsonValue | undefined): string | undefined {
    const schema: JsonSchema = {};
    for (const key of Object.keys(node)) if (!ANNOTATIONS.has(key)) schema[key] = node[key]!;
    if (definitions !== undefined) schema.definitions = definitions;
    const text = JSON.stringify(schema);
    let validate = this.validators.get(text);
    if (validate === undefined) {
      validate = this.instance().compile(schema);
      this.validators.set(text, validate);
    }
    return validate(node.default) ? undefined : describeErrors(validate.errors ?? []);
  }

  private instance(): Ajv {
    if (this.ajv === undefined) {
      const { Ajv: AjvClass } = require("ajv") as typeof import("ajv");
      const addFormats = (require("ajv-formats") as typeof import("ajv-formats")).default;
      // Not strict: the schemas are gen's own, already in strict form; no meta-schema check (~45 ms to compile).
      this.ajv = addFormats(new AjvClass({ allErrors: true, strict: false, validateSchema: false }));
    }
    return this.ajv;
  }
}

/** Keywords that do not constrain a value, left out of the schema a default is checked against (and of its cache key). */
const ANNOTATIONS = new Set(["default", "description", "examples", "deprecated"]);

/** The keywords a TypeScript type alone gives a schema; tags give the others (and a `$ref` may lead to them). */
const TYPE_KEYWORDS = new Set(["type", "enum", "const", "items", "anyOf", "title"]);

/**
 * Whether the compiler accepting a value for the member's type means `schema` accepts it too: the
 * schema says only what a type of primitives, literals, arrays and unions of them says. Object types
 * are left to Ajv, since TypeScript is structural where JSON Schema is not (`object = []`,
 * `{ length?: number } = "ab"`, `{ a: number } | { b: number } = { a: 1, b: 2 }` all compile), and so
 * is `integer` (a tag's type, which any number satisfies for the compiler).
 */
function compilerJudgesAlike(schema: JsonSchema): boolean {
  let alike = true;
  forEachSchema(schema, (node) => {
    for (const key in node) if (!TYPE_KEYWORDS.has(key) && !ANNOTATIONS.has(key)) alike = false;
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes("object") || types.includes("integer")) alike = false;
  });
  return alike;
}

/**
 * Ajv's messages, each once, with where inside the default they are (`/0: must be >= 1`). In a union
 * the branches the default is not even the type of say nothing useful, nor does the union's own
 * "must match a schema in anyOf", when a branch of its type says why.
 */
function describeErrors(errors: readonly ErrorObject[]): string {
  const inUnion = (error: ErrorObject) => /\/(anyOf|oneOf)\/\d+\//.test(error.schemaPath);
  const specific = errors.filter((error) => error.keyword !== "anyOf" && error.keyword !== "oneOf" && !(error.keyword === "type" && inUnion(error)));
  const shown = specific.length > 0 ? specific : errors;
  return [...new Set(shown.map((error) => `${error.instancePath === "" ? "" : `${error.instancePath}: `}${error.message ?? error.keyword}`))].join("; ");
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

/** Every JSON type but null, which TypeScript's `{}` excludes (with undefined). */
const NON_NULL_TYPES: JsonValue[] = ["string", "number", "boolean", "object", "array"];

/**
 * TypeScript's `{}` accepts any value but null and undefined. typescript-json-schema writes it as an
 * object with no properties and no `additionalProperties` (an empty interface, `object` and records all
 * get `additionalProperties`), which refuses the strings, numbers, booleans and arrays `{}` accepts. It
 * becomes the list of the other JSON types, which `splitTypeUnions` then turns into strict Ajv's form.
 */
function anyValueButNull(node: JsonSchema): void {
  const properties = node.properties;
  if (node.type !== "object" || properties === undefined || !isSchemaObject(properties) || Object.keys(properties).length > 0) return;
  if (node.additionalProperties !== undefined || node.patternProperties !== undefined || node.required !== undefined) return;
  delete node.properties;
  node.type = NON_NULL_TYPES;
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

/**
 * OpenAI refuses a function whose parameters hold an array schema without `items` (strict or not), and
 * typescript-json-schema writes none for an empty tuple, nor does `anyValueButNull` for the arrays `{}`
 * admits; `items: {}` says the same (any element, of which an empty tuple has none). Added once the
 * tree is otherwise finished, so that tags and the order of `anyOf` branches are decided as before.
 */
function anyItems(node: JsonSchema): void {
  const canBeArray = node.type === "array" || (Array.isArray(node.type) && node.type.includes("array"));
  if (canBeArray && node.items === undefined) node.items = {};
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
