import { ts } from "../program/compiler.js";
import type { JsonSchema, JsonValue } from "../../shared/schemas-file.js";
import { orderSchemaKeys } from "../../shared/schema-walk.js";
import { diagnosticAt, type Diagnostic } from "../diagnostic.js";
import type { ParamDoc } from "../reflect/tool-docs.js";
import { toolFunctionOf } from "../reflect/discover-tools.js";
import { patternDefaults } from "../reflect/pattern-defaults.js";
import { applyKeyword, isTypedKeyword, keywordFromTag, placeKeyword } from "./keywords.js";

/**
 * `@param` names below a parameter: `@param o.name`, `@param o.inner.x`, `@param o.items[].name` (an
 * element of an array), and in a tool taking one destructured object `@param opts.filters.tag` (the
 * first name is the object's, any name) or `@param filters.tag`. Each such @param gives the member its
 * description and the validation tags after it, as a doc comment on the member's declaration would (the
 * @param wins over one). A @param that names no parameter or member is a warning at the tag, never
 * silent.
 *
 * A tool taking one destructured object also gives members below its properties the defaults its
 * pattern writes there (`{ filter: { tag = "x" } = {} }`), as a top-level default does: the value as
 * `default` on the member's schema, which leaves its parent's `required` (a computed default only does
 * the latter); below a union of object types, on the branches where the member's type is the default's
 * JSON type (on all of them when none is). A default reaching into a recursive type (a `$ref`) is skipped: that schema is the type's,
 * shared by every use of it. One given by the pattern wins over a `@default` tag of the same member.
 */

/** What to write on a member below a property of the arguments object: a @param's doc, or a pattern's default. */
export type MemberDoc = ParamMemberDoc | MemberDefault;

interface MemberPlace {
  /** The property of the arguments object the path starts from. */
  property: string;
  /** The steps below it: member names, and `[]` for the elements of an array. */
  path: string[];
}

/** A @param for a member below a property of the arguments object. */
export interface ParamMemberDoc extends MemberPlace {
  kind: "param";
  /** The steps written before the path, the property's name included: `opts.filters` for `opts.filters.tag`. */
  lead: string[];
  /** The name as written after `@param`, for messages. */
  written: string;
  doc: ParamDoc;
}

/** A default the tool's destructuring pattern gives a member below a property. */
export interface MemberDefault extends MemberPlace {
  kind: "default";
  /** `undefined` for a computed default. */
  value: JsonValue | undefined;
  /** The initializer it was read from. */
  initializer: ts.Expression;
}

/** `o.items[].name` → `["o", "items", "[]", "name"]`. */
export function pathSteps(written: string): string[] {
  return written.replace(/\[\]/g, ".[]").split(".").filter((step) => step !== "");
}

/** `["o", "items", "[]", "name"]` → `o.items[].name`. */
function joinSteps(steps: readonly string[]): string {
  return steps.join(".").replace(/\.\[\]/g, "[]");
}

/** The compiler's spelling suggestion (`did you mean …?`), which it exports without typings. */
const spellingSuggestion = (ts as unknown as {
  getSpellingSuggestion<T>(name: string, candidates: readonly T[], getName: (candidate: T) => string | undefined): T | undefined;
}).getSpellingSuggestion;

function suggest(name: string, candidates: Iterable<string>): string | undefined {
  return spellingSuggestion(name, [...candidates], (candidate) => candidate);
}

/** The warning for a @param whose name reaches nothing; `suggestion` is a whole name as it would be written. */
export function unmatchedParam(written: string, doc: ParamDoc, fallback: ts.Node, toolName: string, suggestion: string | undefined): Diagnostic {
  const hint = suggestion === undefined ? "" : `; did you mean ${suggestion}?`;
  return diagnosticAt(doc.tag ?? fallback, "warning", `@param ${written} of tool "${toolName}" names no parameter or member${hint}`);
}

/**
 * Which of a tool's @params name members below its properties, and warnings for those that name
 * nothing; then the defaults its pattern writes below them. `properties` are the names of the arguments
 * object's properties; `destructured` when they are the members of the tool's one destructured
 * parameter (then a @param may start with the object's name). `declaration` is the tool's (its function
 * or the `const` holding it), where a @param without a tag of its own is reported.
 */
export function memberDocsOf(
  params: ReadonlyMap<string, ParamDoc>,
  properties: readonly string[],
  destructured: boolean,
  declaration: ts.Node,
  toolName: string,
): { memberDocs: MemberDoc[]; diagnostics: Diagnostic[] } {
  const names = new Set(properties);
  const memberDocs: MemberDoc[] = [];
  const diagnostics: Diagnostic[] = [];
  const written = [...params.keys()];
  for (const [name, doc] of params) {
    const steps = pathSteps(name);
    const [first, second] = steps;
    if (first === undefined) continue;
    if (!destructured) {
      if (names.has(first)) {
        if (steps.length > 1) memberDocs.push({ kind: "param", property: first, lead: steps.slice(0, 1), path: steps.slice(1), written: name, doc });
      } else if (first !== "this") {
        const close = suggest(first, names);
        diagnostics.push(unmatchedParam(name, doc, declaration, toolName, close === undefined ? undefined : name.replace(first, close)));
      }
      continue;
    }
    // One destructured object: `@param query`, `@param opts.query`, `@param opts.filters.tag` or `@param filters.tag`.
    if (steps.length === 1) {
      if (names.has(first)) continue;
      // The object's own name, which other @params start with (`@param opts` then `@param opts.query`).
      if (written.some((other) => other.startsWith(`${first}.`) || other.startsWith(`${first}[`))) continue;
      diagnostics.push(unmatchedParam(name, doc, declaration, toolName, suggest(first, names)));
    } else if (second !== undefined && second !== "[]" && names.has(second)) {
      if (steps.length > 2) memberDocs.push({ kind: "param", property: second, lead: steps.slice(0, 2), path: steps.slice(2), written: name, doc });
    } else if (names.has(first)) {
      memberDocs.push({ kind: "param", property: first, lead: steps.slice(0, 1), path: steps.slice(1), written: name, doc });
    } else {
      const close = second === undefined ? undefined : suggest(second, names);
      diagnostics.push(unmatchedParam(name, doc, declaration, toolName, close === undefined ? undefined : name.replace(`.${second}`, `.${close}`)));
    }
  }
  if (destructured) memberDocs.push(...nestedDefaults(declaration, names));
  return { memberDocs, diagnostics };
}

/** The defaults below the properties that the pattern of the tool's destructured parameter writes. */
function nestedDefaults(declaration: ts.Node, properties: ReadonlySet<string>): MemberDefault[] {
  // A `this` parameter is named by an identifier, never a pattern.
  const pattern = toolFunctionOf(declaration)?.parameters.map((parameter) => parameter.name).find(ts.isObjectBindingPattern);
  if (pattern === undefined) return [];
  return patternDefaults(pattern)
    .filter((entry) => entry.path.length > 0 && properties.has(entry.property))
    .map((entry) => ({ kind: "default", ...entry }));
}

function isSchema(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What one step of a path reaches in a schema: the schemas, else the names there were and a `$ref` met. */
interface Step {
  found: JsonSchema[];
  names: Set<string>;
  ref?: string;
}

function step(schema: JsonSchema, name: string, into: Step): void {
  if (typeof schema.$ref === "string") {
    into.ref ??= decodeURIComponent(schema.$ref.slice(schema.$ref.lastIndexOf("/") + 1));
    return;
  }
  if (name === "[]") {
    if (isSchema(schema.items)) into.found.push(schema.items);
    else if (Array.isArray(schema.items)) into.found.push(...schema.items.filter(isSchema));
  } else if (isSchema(schema.properties)) {
    for (const member of Object.keys(schema.properties)) into.names.add(member);
    const member = schema.properties[name];
    if (isSchema(member)) into.found.push(member);
  }
  // A member of every branch that has it: `Outer | null`, a union of object types.
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const branch of branches) if (isSchema(branch)) step(branch, name, into);
  }
}

/**
 * Whether `schema` admits a value of `value`'s JSON type (an `enum` or `const`: that value), looking no
 * deeper; a `$ref` or a schema naming no type admits anything.
 */
function admitsKind(schema: JsonSchema, value: JsonValue): boolean {
  if (typeof schema.$ref === "string") return true;
  const same = (other: JsonValue) => JSON.stringify(other) === JSON.stringify(value);
  if ("const" in schema && !same(schema.const!)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some(same)) return false;
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (Array.isArray(branches) && !branches.some((branch) => isSchema(branch) && admitsKind(branch, value))) return false;
  }
  if (schema.type === undefined) return true;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  return types.some((type) => type === kind || (type === "integer" && Number.isInteger(value)));
}

/** Where a path leads from a property's schema: the schemas there and the ones holding them, or how far it got. */
type Reached = { targets: JsonSchema[]; holders: JsonSchema[] } | { reached: string[]; last: Step };

function reach(root: JsonSchema, path: readonly string[]): Reached {
  let targets = [root];
  let holders: JsonSchema[] = [];
  const reached: string[] = [];
  for (const name of path) {
    const next: Step = { found: [], names: new Set() };
    for (const target of targets) step(target, name, next);
    if (next.found.length === 0) return { reached, last: next };
    holders = targets;
    targets = next.found;
    reached.push(name);
  }
  return { targets, holders };
}

/** Takes `name` out of `required` wherever `schema` (or a branch of it) lists it as a member. */
function dropRequired(schema: JsonSchema, name: string): void {
  if (Array.isArray(schema.required) && isSchema(schema.properties) && name in schema.properties) {
    const rest = schema.required.filter((entry) => entry !== name);
    if (rest.length > 0) schema.required = rest;
    else delete schema.required;
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const branch of branches) if (isSchema(branch)) dropRequired(branch, name);
  }
}

/**
 * Gives each member named by a @param path its description and tags, and each member a pattern gives a
 * default that default, in `properties` (the finished `parameters.properties`; a property changed is
 * replaced by a changed copy, as its parts may be shared). A @param path that reaches nothing is a
 * warning naming what is there; one that goes through a recursive type (a `$ref`) too, since the member's
 * schema is that type's, shared by every use of it. A default that reaches nothing is skipped.
 */
export function applyMemberDocs(properties: { [name: string]: JsonSchema }, memberDocs: readonly MemberDoc[], fallback: ts.Node, toolName: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const copies = new Map<string, JsonSchema>();
  for (const entry of memberDocs) {
    const { property, path } = entry;
    if (properties[property] === undefined) continue;
    let root = copies.get(property);
    if (root === undefined) {
      root = structuredClone(properties[property]);
      copies.set(property, root);
    }
    const found = reach(root, path);
    if (entry.kind === "default") {
      if (!("targets" in found)) continue;
      const { value } = entry;
      if (value !== undefined) {
        // Below a union the member's type differs by branch (`{ v?: string } | { v?: number }`): the
        // default goes where it is of the member's type; nowhere being so, everywhere, to be warned about.
        const fitting = found.targets.filter((target) => admitsKind(target, value));
        for (const target of fitting.length > 0 ? fitting : found.targets) target.default = structuredClone(value);
      }
      for (const holder of found.holders) dropRequired(holder, path[path.length - 1]!);
      continue;
    }
    const { lead, written, doc } = entry;
    if (!("targets" in found)) {
      const { reached, last } = found;
      const at = joinSteps([...lead, ...reached]);
      if (last.ref !== undefined) {
        diagnostics.push(diagnosticAt(doc.tag ?? fallback, "warning",
          `@param ${written} of tool "${toolName}" reaches into the recursive type ${last.ref} (at ${at}), whose members one @param cannot describe for this use alone; put a doc comment on the member where ${last.ref} declares it`));
      } else {
        const name = path[reached.length]!;
        const close = name === "[]" ? undefined : suggest(name, last.names);
        const suggestion = close === undefined ? undefined : joinSteps([...lead, ...reached, close, ...path.slice(reached.length + 1)]);
        diagnostics.push(unmatchedParam(written, doc, fallback, toolName, suggestion));
      }
      continue;
    }
    const subject = `member "${written}" of tool "${toolName}"`;
    const problems = new Map<string, Diagnostic>();
    for (const target of found.targets) {
      if (doc.description !== undefined) target.description = doc.description;
      for (const tag of doc.tags) {
        const result = keywordFromTag(tag.name, tag.text);
        if ("error" in result) {
          problems.set(result.error, diagnosticAt(doc.tag ?? fallback, "error", `${subject}: ${result.error}`));
          continue;
        }
        if (!isTypedKeyword(result.keyword)) {
          applyKeyword(target, result.keyword, result.value);
          continue;
        }
        const problem = placeKeyword(target, result.keyword, result.value, subject);
        if (problem !== undefined) problems.set(problem.message, diagnosticAt(doc.tag ?? fallback, problem.severity, problem.message));
      }
    }
    diagnostics.push(...problems.values());
  }
  for (const [property, schema] of copies) properties[property] = orderSchemaKeys(schema);
  return diagnostics;
}
