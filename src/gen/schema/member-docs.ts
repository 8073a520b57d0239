import { ts } from "../program/compiler.js";
import type { JsonSchema, JsonValue } from "../../shared/schemas-file.js";
import { orderSchemaKeys } from "../../shared/schema-walk.js";
import { diagnosticAt, type Diagnostic } from "../diagnostic.js";
import type { ParamDoc } from "../reflect/tool-docs.js";
import { applyKeyword, isTypedKeyword, keywordFromTag, placeKeyword } from "./keywords.js";

/**
 * `@param` names below a parameter: `@param o.name`, `@param o.inner.x`, `@param o.items[].name` (an
 * element of an array), and in a tool taking one destructured object `@param opts.filters.tag` (the
 * first name is the object's, any name) or `@param filters.tag`. Each such @param gives the member its
 * description and the validation tags after it, as a doc comment on the member's declaration would (the
 * @param wins over one). A @param that names no parameter or member is a warning at the tag, never
 * silent.
 */

/** A @param for a member below a property of the arguments object. */
export interface MemberDoc {
  /** The property of the arguments object the path starts from. */
  property: string;
  /** The steps written before the path, the property's name included: `opts.filters` for `opts.filters.tag`. */
  lead: string[];
  /** The steps below it: member names, and `[]` for the elements of an array. */
  path: string[];
  /** The name as written after `@param`, for messages. */
  written: string;
  doc: ParamDoc;
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
 * nothing. `properties` are the names of the arguments object's properties; `destructured` when they are
 * the members of the tool's one destructured parameter (then a @param may start with the object's name).
 */
export function memberDocsOf(
  params: ReadonlyMap<string, ParamDoc>,
  properties: readonly string[],
  destructured: boolean,
  fallback: ts.Node,
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
        if (steps.length > 1) memberDocs.push({ property: first, lead: steps.slice(0, 1), path: steps.slice(1), written: name, doc });
      } else if (first !== "this") {
        const close = suggest(first, names);
        diagnostics.push(unmatchedParam(name, doc, fallback, toolName, close === undefined ? undefined : name.replace(first, close)));
      }
      continue;
    }
    // One destructured object: `@param query`, `@param opts.query`, `@param opts.filters.tag` or `@param filters.tag`.
    if (steps.length === 1) {
      if (names.has(first)) continue;
      // The object's own name, which other @params start with (`@param opts` then `@param opts.query`).
      if (written.some((other) => other.startsWith(`${first}.`) || other.startsWith(`${first}[`))) continue;
      diagnostics.push(unmatchedParam(name, doc, fallback, toolName, suggest(first, names)));
    } else if (second !== undefined && second !== "[]" && names.has(second)) {
      if (steps.length > 2) memberDocs.push({ property: second, lead: steps.slice(0, 2), path: steps.slice(2), written: name, doc });
    } else if (names.has(first)) {
      memberDocs.push({ property: first, lead: steps.slice(0, 1), path: steps.slice(1), written: name, doc });
    } else {
      const close = second === undefined ? undefined : suggest(second, names);
      diagnostics.push(unmatchedParam(name, doc, fallback, toolName, close === undefined ? undefined : name.replace(`.${second}`, `.${close}`)));
    }
  }
  return { memberDocs, diagnostics };
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
 * Gives each member named by a @param path its description and tags, in `properties` (the finished
 * `parameters.properties`; a property changed is replaced by a changed copy, as its parts may be shared).
 * A path that reaches nothing is a warning naming what is there; one that goes through a recursive type
 * (a `$ref`) too, since the member's schema is that type's, shared by every use of it.
 */
export function applyMemberDocs(properties: { [name: string]: JsonSchema }, memberDocs: readonly MemberDoc[], fallback: ts.Node, toolName: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const copies = new Map<string, JsonSchema>();
  for (const { property, lead, path, written, doc } of memberDocs) {
    if (properties[property] === undefined) continue;
    let root = copies.get(property);
    if (root === undefined) {
      root = structuredClone(properties[property]);
      copies.set(property, root);
    }
    let targets = [root];
    let reached: string[] = [];
    let failed = false;
    for (const name of path) {
      const next: Step = { found: [], names: new Set() };
      for (const target of targets) step(target, name, next);
      if (next.found.length === 0) {
        const at = joinSteps([...lead, ...reached]);
        if (next.ref !== undefined) {
          diagnostics.push(diagnosticAt(doc.tag ?? fallback, "warning",
            `@param ${written} of tool "${toolName}" reaches into the recursive type ${next.ref} (at ${at}), whose members one @param cannot describe for this use alone; put a doc comment on the member where ${next.ref} declares it`));
        } else {
          const close = name === "[]" ? undefined : suggest(name, next.names);
          const suggestion = close === undefined ? undefined : joinSteps([...lead, ...reached, close, ...path.slice(reached.length + 1)]);
          diagnostics.push(unmatchedParam(written, doc, fallback, toolName, suggestion));
        }
        failed = true;
        break;
      }
      targets = next.found;
      reached = [...reached, name];
    }
    if (failed) continue;
    const subject = `member "${written}" of tool "${toolName}"`;
    const problems = new Map<string, Diagnostic>();
    for (const target of targets) {
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
