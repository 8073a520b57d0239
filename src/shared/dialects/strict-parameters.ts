/**
 * A tool's lenient `parameters` → the same parameters in OpenAI's strict dialect, or the reasons they
 * have no such form. The strict form:
 * - every object lists all its keys in `required` and has `additionalProperties: false`; a member that is
 *   optional (or defaulted) in TypeScript, at any depth, admits `null` instead (the runtime reads `null`
 *   there as "not given");
 * - keeps only the keywords the dialect accepts; every other one is dropped and said in words in the
 *   description of the schema it was on (`default: 20`, `at least 1 character`, `unique items`);
 * - turns a tuple into an array of its element types with its length bounds (the order said in words);
 * - `oneOf` becomes `anyOf` (the lenient schema, always validated locally, still checks exclusivity);
 * - a `$ref` stands alone: a described one is replaced by a copy of its definition carrying the
 *   description, as OpenAI's own SDK does.
 * Open objects (records, index signatures), `{}` (unknown/any), composition keywords the dialect lacks
 * and schemas past its size limits cannot be expressed: then the result lists why, per parameter.
 */
import type { JsonSchema, JsonValue, ParametersSchema } from "../schemas-file.js";
import { dropUnusedDefinitions, forEachSchema, isSettled, orderSchemaKeys, settle } from "../schema-walk.js";
import { strictLimitProblems } from "./strict-limits.js";
import { describeWithWords, droppedKeywordWords, STRICT_FORMATS, typePhrase } from "./strict-words.js";

/** Why parameters have no strict form; `parameter` is the tool parameter concerned (absent: the whole tool). */
export interface StrictProblem {
  parameter?: string;
  /** Where inside it, as a member path (`opts.filter`, `points[]`); equals `parameter` at its top. */
  member?: string;
  reason: string;
}

export type StrictParameters = { ok: true; parameters: ParametersSchema } | { ok: false; problems: StrictProblem[] };

/** Keywords the dialect accepts as they are. */
const KEPT = new Set(["type", "description", "enum", "const", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems"]);
/** Keywords this module rebuilds itself. */
const REBUILT = new Set(["$ref", "anyOf", "oneOf", "properties", "required", "additionalProperties", "items", "definitions", "format"]);
/** Keywords whose meaning the dialect cannot carry at all. */
const INEXPRESSIBLE = ["allOf", "not", "if", "then", "else", "patternProperties", "propertyNames", "dependencies", "additionalItems", "contains"];

const NULL_SCHEMA: JsonSchema = { type: "null" };

/** Strict forms of settled lenient schemas that stand alone, by optionality (see `StrictConverter.convert`). */
const strictForms = new WeakMap<JsonSchema, { required?: JsonSchema; optional?: JsonSchema }>();

interface Where {
  parameter?: string;
  member?: string;
}

function isSchema(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A deep copy of plain JSON (structuredClone is several times slower on these small trees). */
function clone<T extends JsonValue>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  const copy: JsonSchema = {};
  for (const key of Object.keys(value)) copy[key] = clone(value[key]!);
  return copy as T;
}

function definitionName(ref: string): string {
  return decodeURIComponent(ref.slice(ref.lastIndexOf("/") + 1));
}

function inside(where: Where, suffix: string): Where {
  return { ...where, member: `${where.member ?? ""}${suffix}` };
}

class StrictConverter {
  readonly problems: StrictProblem[] = [];
  readonly definitions: Record<string, JsonSchema> = {};
  private readonly started = new Set<string>();

  /** Whether the lenient schema has no definitions, so that each of its schemas stands alone. */
  private readonly standalone: boolean;

  constructor(private readonly lenientDefinitions: Record<string, JsonValue>) {
    this.standalone = Object.keys(lenientDefinitions).length === 0;
  }

  root(parameters: ParametersSchema): JsonSchema {
    const properties: JsonSchema = {};
    const required = new Set(parameters.required);
    for (const [name, schema] of Object.entries(parameters.properties)) {
      properties[name] = this.convert(schema, { parameter: name, member: name }, !required.has(name));
    }
    const description = describeWithWords(parameters.description, []);
    return {
      type: "object",
      ...(description !== undefined ? { description } : {}),
      properties,
      required: Object.keys(properties),
      additionalProperties: false,
    };
  }

  private fail(where: Where, reason: string): JsonSchema {
    this.problems.push({ ...where, reason });
    return {};
  }

  private definition(name: string, where: Where): void {
    if (this.started.has(name)) return;
    this.started.add(name);
    const source = this.lenientDefinitions[name];
    if (!isSchema(source)) {
      this.fail(where, `refers to a definition "${name}" that is missing`);
      return;
    }
    this.definitions[name] = this.convert(source, where, false);
  }

  /** Whether a lenient schema already accepts `null`. */
  private admitsNull(schema: JsonSchema, seen: ReadonlySet<string> = new Set()): boolean {
    if (typeof schema.$ref === "string") {
      const name = definitionName(schema.$ref);
      const target = this.lenientDefinitions[name];
      return !seen.has(name) && isSchema(target) && this.admitsNull(target, new Set([...seen, name]));
    }
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.includes("null") || schema.const === null || (Array.isArray(schema.enum) && schema.enum.includes(null))) return true;
    return ["anyOf", "oneOf"].some((key) => {
      const branches = schema[key];
      return Array.isArray(branches) && branches.some((branch) => isSchema(branch) && this.admitsNull(branch, seen));
    });
  }

  /**
   * The strict form of a schema: made once per settled (shared, unchanging) lenient schema and
   * optionality, when nothing outside it (a definition) can change what it becomes, and shared in turn.
   * One with a problem is made again each time, so that the problem names where it is.
   */
  private convert(node: JsonSchema, where: Where, optional: boolean): JsonSchema {
    if (!this.standalone || !isSettled(node)) return this.convertFresh(node, where, optional);
    let made = strictForms.get(node);
    if (made === undefined) {
      made = {};
      strictForms.set(node, made);
    }
    const key = optional ? "optional" : "required";
    const known = made[key];
    if (known !== undefined) return known;
    const problems = this.problems.length;
    const converted = this.convertFresh(node, where, optional);
    if (this.problems.length > problems) return converted;
    return (made[key] = settle(orderSchemaKeys(converted)));
  }

  private convertFresh(node: JsonSchema, where: Where, optional: boolean): JsonSchema {
    const unsupported = INEXPRESSIBLE.find((keyword) => keyword in node);
    if (unsupported !== undefined) return this.fail(where, `uses ${unsupported}, which strict mode cannot express`);
    const words: string[] = [];
    for (const [keyword, value] of Object.entries(node)) {
      if (KEPT.has(keyword) || REBUILT.has(keyword)) continue;
      const phrase = droppedKeywordWords(keyword, value);
      if (phrase !== undefined) words.push(phrase);
    }
    if (typeof node.format === "string" && !STRICT_FORMATS.has(node.format)) words.push(droppedKeywordWords("format", node.format)!);

    if (typeof node.$ref === "string") {
      this.definition(definitionName(node.$ref), where);
      const description = describeWithWords(node.description, words);
      const ref: JsonSchema = { $ref: node.$ref };
      if (optional && !this.admitsNull(node)) return { ...(description !== undefined ? { description } : {}), anyOf: [ref, { ...NULL_SCHEMA }] };
      // Resolved by `inlineDescribedRefs` once every definition has its strict form.
      return description !== undefined ? { ...ref, description } : ref;
    }
    const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
    if (node.type === undefined && branches === undefined && node.enum === undefined && !("const" in node)) {
      return this.fail(where, "accepts any JSON value (its type is unknown or any), which strict mode cannot express");
    }

    const out: JsonSchema = {};
    for (const [keyword, value] of Object.entries(node)) if (KEPT.has(keyword)) out[keyword] = clone(value);
    if (typeof node.format === "string" && STRICT_FORMATS.has(node.format)) out.format = node.format;
    if (branches !== undefined) out.anyOf = branches.filter(isSchema).map((branch) => this.convert(branch, where, false));
    this.convertObject(node, out, where);
    this.convertItems(node, out, where, words);
    const description = describeWithWords(node.description, words);
    if (description === undefined) delete out.description;
    else out.description = description;
    return optional && !this.admitsNull(node) ? admitNull(out) : out;
  }

  private convertObject(node: JsonSchema, out: JsonSchema, where: Where): void {
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (!isSchema(node.properties) && !types.includes("object")) return;
    if (node.additionalProperties !== false) {
      this.fail(where, "is an open object (a Record or an index signature), whose keys strict mode needs named in advance");
      return;
    }
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const properties: JsonSchema = {};
    for (const [name, schema] of Object.entries(isSchema(node.properties) ? node.properties : {})) {
      if (!isSchema(schema)) continue;
      properties[name] = this.convert(schema, inside(where, `.${name}`), !required.has(name));
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }

  private convertItems(node: JsonSchema, out: JsonSchema, where: Where, words: string[]): void {
    const items = node.items;
    if (isSchema(items)) {
      out.items = this.convert(items, inside(where, "[]"), false);
    } else if (Array.isArray(items)) {
      const elements = items.filter(isSchema).map((item, index) => this.convert(item, inside(where, `[${index}]`), false));
      const distinct = [...new Map(elements.map((element) => [JSON.stringify(orderSchemaKeys(element)), element])).values()];
      if (distinct.length === 1) out.items = distinct[0]!;
      else if (distinct.length > 1) {
        out.items = { anyOf: distinct };
        words.push(`items in this order: ${elements.map(typePhrase).join(", ")}`);
      }
    }
  }
}

/** The strict schema `out`, also accepting `null`. */
function admitNull(out: JsonSchema): JsonSchema {
  if (Array.isArray(out.anyOf)) return { ...out, anyOf: [...out.anyOf, { ...NULL_SCHEMA }] };
  if ("const" in out || out.type === undefined) {
    const { description, ...rest } = out;
    return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { ...NULL_SCHEMA }] };
  }
  const result: JsonSchema = { ...out, type: [...(Array.isArray(out.type) ? out.type : [out.type]), "null"] };
  if (Array.isArray(out.enum)) result.enum = [...out.enum, null];
  return result;
}

/**
 * A `$ref` may have no sibling, not even `description`: each described one becomes a copy of its
 * definition with the description in place of the definition's own. References inside the copy stay
 * bare, so recursion ends after one copy.
 */
function inlineDescribedRefs(root: JsonSchema, definitions: Record<string, JsonSchema>): void {
  if (Object.keys(definitions).length === 0) return;
  const originals = clone(definitions);
  for (const definition of Object.values(originals)) forEachSchema(definition, bareRef);
  forEachSchema(root, (node) => {
    if (typeof node.$ref !== "string" || Object.keys(node).length === 1) return;
    const target = originals[definitionName(node.$ref)];
    const description = node.description;
    // An alias of another definition would be a described `$ref` again: the description has no place then.
    if (target === undefined || typeof target.$ref === "string") return bareRef(node);
    for (const key of Object.keys(node)) delete node[key];
    Object.assign(node, clone(target), description !== undefined ? { description } : {});
  });
}

function bareRef(node: JsonSchema): void {
  if (typeof node.$ref !== "string") return;
  for (const key of Object.keys(node)) if (key !== "$ref") delete node[key];
}

/** The strict form of a tool's lenient `parameters` (see the module comment), or why there is none. */
export function toStrictParameters(parameters: ParametersSchema): StrictParameters {
  const converter = new StrictConverter(isSchema(parameters.definitions) ? parameters.definitions : {});
  const root = converter.root(parameters);
  if (converter.problems.length > 0) return { ok: false, problems: converter.problems };
  if (Object.keys(converter.definitions).length > 0) root.definitions = converter.definitions;
  inlineDescribedRefs(root, converter.definitions);
  dropUnusedDefinitions(root);
  const limits = strictLimitProblems(root);
  if (limits.length > 0) return { ok: false, problems: limits };
  return { ok: true, parameters: orderSchemaKeys(root) as ParametersSchema };
}
