/**
 * A tool's lenient `parameters` → the same parameters in OpenAI's strict dialect, or the reasons they
 * have no such form. The strict form:
 * - every object lists all its keys in `required` and has `additionalProperties: false`; a member that is
 *   optional (or defaulted) in TypeScript, at any depth, admits `null` instead (the runtime reads `null`
 *   there as "not given");
 * - keeps only the keywords the dialect accepts; every other one is dropped and said in words in the
 *   description of the schema it was on (`default: 20`, `at least 1 character`, `unique items`);
 * - turns a tuple (`prefixItems`, draft-07's `items` list) into an array of its element types with its
 *   length bounds (the order said in words; `items: false` after the positions becomes `maxItems`);
 * - `oneOf` becomes `anyOf` (the lenient schema, always validated locally, still checks exclusivity);
 * - a `$ref` stands alone: a described one is replaced by a copy of its definition carrying the
 *   description, as OpenAI's own SDK does (a large definition is not copied: the description goes
 *   beside `anyOf: [{ $ref }]`);
 * - a `$ref` is a JSON Pointer into the parameters (RFC 6901): `#/definitions/<name>` stays as
 *   written, and any other place it points at (`#/definitions/box/properties/size`, `#/$defs/x`, `#`)
 *   becomes a definition of its own, named after its path (`box.properties.size`), since the dialect
 *   follows only a definition's name.
 * Open objects (records, index signatures), `{}` (unknown/any), an array without `items` (nor positions
 * to make them from, `items: false` alone included: OpenAI refuses an array schema without `items`),
 * composition keywords the dialect lacks and schemas past its size limits cannot be expressed: then the
 * result lists why, per parameter.
 */
import type { JsonSchema, JsonValue, ParametersSchema } from "../schemas-file.js";
import { definitionRefName, dropUnusedDefinitions, forEachSchema, isSettled, orderSchemaKeys, pointerSegments, settle, valueAtPointer } from "../schema-walk.js";
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
const REBUILT = new Set(["$ref", "anyOf", "oneOf", "properties", "required", "additionalProperties", "items", "prefixItems", "definitions", "format"]);
/** Keywords whose meaning the dialect cannot carry at all. */
const INEXPRESSIBLE = ["allOf", "not", "if", "then", "else", "patternProperties", "propertyNames", "dependencies", "additionalItems", "contains"];

const NULL_SCHEMA: JsonSchema = { type: "null" };

/** OpenAI refuses an array schema without `items`, and strict mode has no schema for "any element". */
const NO_ITEMS_REASON = "is an array without items (no schema for its elements), which strict mode cannot express";

/** A member so named would set the strict object's prototype instead, and vanish from it. */
const PROTO_NAME = "__proto__";
const PROTO_REASON = "is named __proto__, which a JavaScript object cannot carry as a member, so its strict form would lose it";

/** Strict forms of settled lenient schemas that stand alone, by optionality (see `StrictConverter.convert`). */
const strictForms = new WeakMap<JsonSchema, { required?: JsonSchema; optional?: JsonSchema }>();

interface Where {
  parameter?: string;
  member?: string;
}

/** A lenient `$ref` as the strict schema writes it: the definition it becomes, and the schema it points at. */
interface Reference {
  name: string;
  ref: string;
  target: JsonSchema;
}

function isSchema(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A deep copy of plain JSON (structuredClone is several times slower on these small trees). */
function clone<T extends JsonValue>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  const copy: JsonSchema = {};
  for (const key of Object.keys(value)) {
    // Assigning `__proto__` would set the copy's prototype and lose the member (a `const` object's key).
    if (key === "__proto__") Object.defineProperty(copy, key, { value: clone(value[key]!), enumerable: true, writable: true, configurable: true });
    else copy[key] = clone(value[key]!);
  }
  return copy as T;
}

function inside(where: Where, suffix: string): Where {
  return { ...where, member: `${where.member ?? ""}${suffix}` };
}

class StrictConverter {
  readonly problems: StrictProblem[] = [];
  readonly definitions: Record<string, JsonSchema> = {};
  private readonly started = new Set<string>();
  private readonly lenientDefinitions: Record<string, JsonValue>;
  /** Each `$ref` as written → where it leads (`undefined`: nowhere); each place → its one definition. */
  private readonly references = new Map<string, Reference | undefined>();
  private readonly byTarget = new Map<JsonSchema, Reference>();
  private readonly madeNames = new Set<string>();
  private readonly reportedMissing = new Set<string>();
  private readonly nullAdmitting = new Map<JsonSchema, boolean>();
  private readonly refCycles = new Map<JsonSchema, boolean>();
  /** `$ref`s converted so far: a strict form made while following one depends on the document. */
  private refsFollowed = 0;

  /** Whether the lenient schema has no definitions, so that each of its schemas stands alone. */
  private readonly standalone: boolean;

  constructor(private readonly document: ParametersSchema) {
    this.lenientDefinitions = isSchema(document.definitions) ? document.definitions : {};
    this.standalone = Object.keys(this.lenientDefinitions).length === 0;
  }

  root(parameters: ParametersSchema): JsonSchema {
    const properties: JsonSchema = {};
    const required = new Set(parameters.required);
    for (const [name, schema] of Object.entries(parameters.properties as Record<string, JsonValue>)) {
      if (name === PROTO_NAME) this.fail({ parameter: name, member: name }, PROTO_REASON);
      else if (!isSchema(schema)) this.fail({ parameter: name, member: name }, notASchemaReason(schema));
      else properties[name] = this.convert(schema, { parameter: name, member: name }, !required.has(name));
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

  /**
   * Where a lenient `$ref` leads in the document, read as a JSON Pointer. A `#/definitions/<name>` keeps
   * its spelling (gen's refs, so its output stays as it was); a pointer elsewhere gets a new name that no
   * lenient definition has. One definition per place, however the refs to it are spelled.
   */
  private follow(ref: string): Reference | undefined {
    if (this.references.has(ref)) return this.references.get(ref);
    const segments = pointerSegments(ref);
    const target = segments === undefined ? undefined : valueAtPointer(this.document, segments);
    let reference: Reference | undefined;
    if (segments !== undefined && isSchema(target)) {
      reference = this.byTarget.get(target);
      if (reference === undefined) {
        // A `~` escape is not undone by readers that only percent-decode a name (the API's among them),
        // nor is an empty name read; `__proto__` cannot be a key of the strict `definitions`.
        const written = ref.includes("~") ? undefined : definitionRefName(ref);
        const named = written !== undefined && written !== "" && written !== PROTO_NAME && Object.hasOwn(this.lenientDefinitions, written) ? written : undefined;
        const name = named ?? this.freshName(segments);
        reference = { name, ref: named !== undefined ? ref : `#/definitions/${name}`, target };
        this.byTarget.set(target, reference);
      }
    }
    this.references.set(ref, reference);
    return reference;
  }

  /** `box.properties.size` for `#/definitions/box/properties/size`: characters any reader takes as they are. */
  private freshName(segments: readonly string[]): string {
    const path = segments[0] === "definitions" || segments[0] === "$defs" ? segments.slice(1) : segments;
    const base = path.join(".").replace(/[^A-Za-z0-9_.-]/g, "_") || (segments.length === 0 ? "parameters" : "_");
    let name = base;
    for (let n = 2; name === PROTO_NAME || Object.hasOwn(this.lenientDefinitions, name) || this.madeNames.has(name); n += 1) name = `${base}-${n}`;
    this.madeNames.add(name);
    return name;
  }

  private definition(reference: Reference, where: Where): void {
    if (this.started.has(reference.name)) return;
    this.started.add(reference.name);
    if (this.onlyRefersToItself(reference.target)) {
      this.fail(where, `refers to ${JSON.stringify(reference.ref)}, whose $refs lead only back to themselves, so it describes no value`);
      return;
    }
    this.definitions[reference.name] = this.convert(reference.target, where, false);
  }

  /**
   * Whether a schema is a `$ref` whose chain of `$ref`s (nothing else beside them) comes round again:
   * no validator can read it (Ajv overflows its stack). Each chain is walked once per document.
   */
  private onlyRefersToItself(schema: JsonSchema): boolean {
    const chain: JsonSchema[] = [];
    const onChain = new Set<JsonSchema>();
    let node: JsonSchema | undefined = schema;
    let answer = false;
    while (node !== undefined && typeof node.$ref === "string") {
      const known = this.refCycles.get(node);
      if (known !== undefined || onChain.has(node)) {
        answer = known ?? true;
        break;
      }
      chain.push(node);
      onChain.add(node);
      node = this.follow(node.$ref)?.target;
    }
    for (const link of chain) this.refCycles.set(link, answer);
    return answer;
  }

  /** Why a `$ref` that leads nowhere has no strict form, said once per `$ref`. */
  private missing(ref: string, where: Where): void {
    if (this.reportedMissing.has(ref)) return;
    this.reportedMissing.add(ref);
    const name = definitionRefName(ref);
    if (name !== undefined) this.fail(where, `refers to a definition "${name}" that is missing`);
    else if (pointerSegments(ref) === undefined) this.fail(where, `refers to ${JSON.stringify(ref)}, which is not a JSON Pointer into the schema (#/…)`);
    else this.fail(where, `refers to ${JSON.stringify(ref)}, which points to nothing in the schema`);
  }

  /**
   * Whether a lenient schema already accepts `null`: whether it leads, through `$ref`s and union
   * branches, to a schema that says so. Each schema is looked at once per document (the answer is
   * remembered), so shared branches and chains of definitions cost no more than their size.
   */
  private admitsNull(schema: JsonSchema): boolean {
    const known = this.nullAdmitting.get(schema);
    if (known !== undefined) return known;
    const visited = new Set<JsonSchema>();
    const pending = [schema];
    let found = false;
    while (pending.length > 0 && !found) {
      const node = pending.pop()!;
      if (visited.has(node) || this.nullAdmitting.get(node) === false) continue;
      visited.add(node);
      found = this.nullAdmitting.get(node) === true || this.saysNull(node);
      if (!found) pending.push(...this.nullCandidates(node));
    }
    // Nothing reached from a schema that admits no `null` admits it either.
    if (found) this.nullAdmitting.set(schema, true);
    else for (const node of visited) this.nullAdmitting.set(node, false);
    return found;
  }

  private saysNull(schema: JsonSchema): boolean {
    if (typeof schema.$ref === "string") return false;
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    return types.includes("null") || schema.const === null || (Array.isArray(schema.enum) && schema.enum.includes(null));
  }

  /** The schemas whose `null` a schema accepts: a `$ref`'s target, else its union branches. */
  private nullCandidates(schema: JsonSchema): JsonSchema[] {
    if (typeof schema.$ref === "string") {
      const target = this.follow(schema.$ref)?.target;
      return target !== undefined ? [target] : [];
    }
    return ["anyOf", "oneOf"].flatMap((key) => {
      const branches = schema[key];
      return Array.isArray(branches) ? branches.filter(isSchema) : [];
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
    const followed = this.refsFollowed;
    const converted = this.convertFresh(node, where, optional);
    if (this.problems.length > problems || this.refsFollowed > followed) return converted;
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
      this.refsFollowed += 1;
      const reference = this.follow(node.$ref);
      if (reference === undefined) this.missing(node.$ref, where);
      else this.definition(reference, where);
      const description = describeWithWords(node.description, words);
      const ref: JsonSchema = { $ref: reference?.ref ?? node.$ref };
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
    if (branches !== undefined) out.anyOf = this.convertBranches(branches, where, Array.isArray(node.anyOf) ? "anyOf" : "oneOf");
    this.convertObject(node, out, where);
    const problems = this.problems.length;
    this.convertItems(node, out, where, words);
    // An element schema that has no strict form was named already; one that is not there has not.
    const types = Array.isArray(out.type) ? out.type : [out.type];
    if (types.includes("array") && out.items === undefined && this.problems.length === problems) return this.fail(where, NO_ITEMS_REASON);
    const description = describeWithWords(node.description, words);
    if (description === undefined) delete out.description;
    else out.description = description;
    return optional && !this.admitsNull(node) ? admitNull(out) : out;
  }

  /**
   * A union's branches in strict form. A `false` branch matches nothing and is left out (but a union of
   * nothing else has no strict form); any other that is not an object (a server's `"string"`, `true`) has
   * none either: leaving it out would leave an empty `anyOf`, which the API refuses, or narrow what the
   * model may send.
   */
  private convertBranches(branches: readonly JsonValue[], where: Where, keyword: string): JsonSchema[] {
    const converted = branches.flatMap((branch) => {
      if (isSchema(branch)) return [this.convert(branch, where, false)];
      if (branch !== false) this.fail(where, notASchemaReason(branch, `a branch of its ${keyword}`));
      return [];
    });
    if (branches.length > 0 && branches.every((branch) => branch === false)) {
      this.fail(where, `accepts no value (every branch of its ${keyword} is false), which strict mode cannot express`);
    }
    return converted;
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
      if (name === PROTO_NAME) this.fail(inside(where, `.${name}`), PROTO_REASON);
      else if (!isSchema(schema)) this.fail(inside(where, `.${name}`), notASchemaReason(schema));
      else properties[name] = this.convert(schema, inside(where, `.${name}`), !required.has(name));
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }

  /**
   * A tuple's positions (2020-12's `prefixItems`, draft-07's `items` list) become one element schema, the
   * union of theirs, with the order said in words; a 2020-12 `items` after the positions joins the union,
   * and `items: false` there (or alone) caps the length at the positions' count, as a `false` position
   * caps it before itself.
   */
  private convertItems(node: JsonSchema, out: JsonSchema, where: Where, words: string[]): void {
    const positions = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined;
    const rest = Array.isArray(node.prefixItems) ? node.items : Array.isArray(node.items) ? undefined : node.items;
    // An element schema that is not an object has no strict form; `false` is the length bound below.
    if (rest !== undefined && rest !== false && !isSchema(rest)) this.fail(inside(where, "[]"), notASchemaReason(rest));
    if (positions === undefined) {
      if (isSchema(rest)) out.items = this.convert(rest, inside(where, "[]"), false);
    } else {
      const elements = positions.flatMap((item, index) => {
        if (isSchema(item)) return [this.convert(item, inside(where, `[${index}]`), false)];
        if (item !== false) this.fail(inside(where, `[${index}]`), notASchemaReason(item));
        return [];
      });
      const after = isSchema(rest) ? this.convert(rest, inside(where, "[]"), false) : undefined;
      const all = after !== undefined ? [...elements, after] : elements;
      const distinct = [...new Map(all.map((element) => [JSON.stringify(orderSchemaKeys(element)), element])).values()];
      if (distinct.length === 1) out.items = distinct[0]!;
      else if (distinct.length > 1) {
        out.items = { anyOf: distinct };
        const then = after !== undefined ? `, then any number of ${typePhrase(after)}` : "";
        words.push(`items in this order: ${elements.map(typePhrase).join(", ")}${then}`);
      }
    }
    // No element may stand at a `false` position, nor after the positions when `items` (after them) is false.
    const closedAt = positions?.indexOf(false) ?? -1;
    const count = closedAt >= 0 ? closedAt : rest === false ? (positions?.length ?? 0) : undefined;
    if (count !== undefined) out.maxItems = typeof out.maxItems === "number" ? Math.min(out.maxItems, count) : count;
  }
}

/**
 * Why a member, a union's branch or an array's element whose schema is not an object (a server's
 * `"string"` for `{ "type": "string" }`, a boolean schema) has no strict form: the dialect describes each
 * with an object.
 */
function notASchemaReason(schema: JsonValue, role = "its schema"): string {
  const given = typeof schema === "string" ? `the string ${JSON.stringify(schema.length > 40 ? `${schema.slice(0, 40)}…` : schema)}` : Array.isArray(schema) ? "an array" : String(schema);
  return `has ${given} as ${role}, not a JSON Schema object, which strict mode cannot express`;
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

/** Schemas in a definition past which a described `$ref` to it is not copied (see `inlineDescribedRefs`). */
const MAX_INLINED_SCHEMAS = 100;

function schemaCount(schema: JsonSchema): number {
  let count = 0;
  forEachSchema(schema, () => (count += 1));
  return count;
}

/**
 * A `$ref` may have no sibling, not even `description`: each described one becomes a copy of its
 * definition with the description in place of the definition's own. References inside the copy stay
 * bare, so recursion ends after one copy. A definition of more than `MAX_INLINED_SCHEMAS` schemas is
 * not copied, since many described `$ref`s to it would multiply its size: the description goes beside
 * an `anyOf` of the one `$ref` instead, which means the same.
 */
function inlineDescribedRefs(root: JsonSchema, definitions: Record<string, JsonSchema>): void {
  if (Object.keys(definitions).length === 0) return;
  const originals = clone(definitions);
  for (const definition of Object.values(originals)) forEachSchema(definition, bareRef);
  const large = new Set(Object.keys(originals).filter((name) => schemaCount(originals[name]!) > MAX_INLINED_SCHEMAS));
  forEachSchema(root, (node) => {
    if (typeof node.$ref !== "string" || Object.keys(node).length === 1) return;
    const name = definitionRefName(node.$ref);
    const target = name !== undefined && Object.hasOwn(originals, name) ? originals[name] : undefined;
    const description = node.description;
    // An alias of another definition would be a described `$ref` again: the description has no place then.
    if (target === undefined || typeof target.$ref === "string") return bareRef(node);
    const ref = node.$ref;
    for (const key of Object.keys(node)) delete node[key];
    if (large.has(name!)) Object.assign(node, { anyOf: [{ $ref: ref }] }, description !== undefined ? { description } : {});
    else Object.assign(node, clone(target), description !== undefined ? { description } : {});
  });
}

function bareRef(node: JsonSchema): void {
  if (typeof node.$ref !== "string") return;
  for (const key of Object.keys(node)) if (key !== "$ref") delete node[key];
}

/** The strict form of a tool's lenient `parameters` (see the module comment), or why there is none. */
export function toStrictParameters(parameters: ParametersSchema): StrictParameters {
  const converter = new StrictConverter(parameters);
  const root = converter.root(parameters);
  if (converter.problems.length > 0) return { ok: false, problems: converter.problems };
  if (Object.keys(converter.definitions).length > 0) root.definitions = converter.definitions;
  inlineDescribedRefs(root, converter.definitions);
  dropUnusedDefinitions(root);
  const limits = strictLimitProblems(root);
  if (limits.length > 0) return { ok: false, problems: limits };
  return { ok: true, parameters: orderSchemaKeys(root) as ParametersSchema };
}
