import type { ErrorObject } from "ajv";
import type { JsonSchema, JsonValue } from "../../shared/schemas-file.js";
import { isRecord, isSchemaObject, resolveLocalRef } from "./describe-json.js";

/** A failed union and, per branch index, the errors that kept that branch from matching. */
export interface FailedUnion {
  error: ErrorObject;
  branches: Map<string, ErrorObject[]>;
}

const UNION_SEGMENT = /\/(anyOf|oneOf)\//g;

/**
 * Groups Ajv's errors under the failed union (`anyOf`/`oneOf`) each belongs to, in time linear in the
 * number of errors: a model can send an array of 100k items that each fail a union, and matching every
 * error against every union would hang the loop. An error under several unions goes to the outermost
 * one its schema path names; errors under no failed union are not in `unionOf`.
 */
export function groupUnionErrors(errors: readonly ErrorObject[]): { unions: FailedUnion[]; unionOf: Map<ErrorObject, FailedUnion> } {
  const byPlace = new Map<string, FailedUnion>();
  for (const error of errors) {
    if (error.keyword === "anyOf" || error.keyword === "oneOf") {
      byPlace.set(placeKey(error.schemaPath, error.instancePath), { error, branches: new Map() });
    }
  }
  const unionOf = new Map<ErrorObject, FailedUnion>();
  if (byPlace.size === 0) return { unions: [], unionOf };
  for (const error of errors) {
    const found = findUnion(error, byPlace);
    if (found === undefined) continue;
    const { union, branch } = found;
    unionOf.set(error, union);
    const list = union.branches.get(branch);
    if (list === undefined) union.branches.set(branch, [error]);
    else list.push(error);
  }
  return { unions: [...byPlace.values()], unionOf };
}

function placeKey(schemaPath: string, instancePath: string): string {
  return `${schemaPath}\0${instancePath}`;
}

function findUnion(error: ErrorObject, byPlace: ReadonlyMap<string, FailedUnion>): { union: FailedUnion; branch: string } | undefined {
  for (const match of error.schemaPath.matchAll(UNION_SEGMENT)) {
    const unionPath = error.schemaPath.slice(0, match.index + match[0].length - 1);
    const branch = error.schemaPath.slice(unionPath.length + 1).split("/", 1)[0] ?? "";
    for (let instancePath = error.instancePath; ; instancePath = instancePath.slice(0, instancePath.lastIndexOf("/"))) {
      const union = byPlace.get(placeKey(unionPath, instancePath));
      if (union !== undefined) return { union, branch };
      if (instancePath === "") break;
    }
  }
  return undefined;
}

/**
 * Which branch of a failed union an object was meant for, to describe that branch's problems instead of
 * the whole union: in a discriminated union (a member every branch requires, with a different literal in
 * each) the branch its value names, or, when the value names none, the discriminator itself is the
 * problem; else the branch with the fewest problems among those the value's type fits (the first written
 * on a tie). `undefined`: describe the union as a whole (a value of no branch's type, branches that could
 * not be told apart).
 */
export type BranchChoice =
  | { kind: "discriminated"; member: string; value: JsonValue; index: number }
  | { kind: "unknown-discriminator"; member: string; allowed: JsonValue[]; given: { value: unknown } | undefined }
  | { kind: "closest"; index: number };

export function chooseBranch(union: FailedUnion, root: JsonSchema): BranchChoice | undefined {
  const value = union.error.data as unknown;
  const branches = union.error.schema;
  if (!isRecord(value) || !Array.isArray(branches)) return undefined;
  const resolved = branches.map((branch) => resolvedBranch(branch as JsonValue, root));
  const discriminator = discriminatorOf(resolved);
  if (discriminator !== undefined) {
    const { member, values } = discriminator;
    const given = Object.hasOwn(value, member) ? { value: value[member] } : undefined;
    const index = given === undefined ? -1 : values.findIndex((literal) => literal === given.value);
    return index === -1 ? { kind: "unknown-discriminator", member, allowed: values, given } : { kind: "discriminated", member, value: values[index]!, index };
  }
  let best: { index: number; problems: number } | undefined;
  resolved.forEach((_branch, index) => {
    const problems = union.branches.get(String(index));
    // A branch whose errors sit under a `$ref` elsewhere cannot be counted; one the value's type misses is not meant.
    if (problems === undefined || problems.some((error) => isTypeMismatchAt(error, union.error.instancePath))) return;
    if (best === undefined || problems.length < best.problems) best = { index, problems: problems.length };
  });
  return best === undefined ? undefined : { kind: "closest", index: best.index };
}

/** A type, `const` or `enum` failure at the union's own value: the value is not of that branch's kind. */
function isTypeMismatchAt(error: ErrorObject, instancePath: string): boolean {
  return error.instancePath === instancePath && (error.keyword === "type" || error.keyword === "const" || error.keyword === "enum");
}

function resolvedBranch(branch: JsonValue, root: JsonSchema): JsonValue | undefined {
  let current: JsonValue | undefined = branch;
  for (let hops = 0; hops < 8 && isSchemaObject(current) && typeof current.$ref === "string"; hops += 1) current = resolveLocalRef(root, current.$ref);
  return current;
}

/** A member every branch requires, each with one literal value (`const` or a one-value `enum`), all different. */
function discriminatorOf(branches: readonly (JsonValue | undefined)[]): { member: string; values: JsonValue[] } | undefined {
  const first = branches[0];
  if (branches.length < 2 || !isSchemaObject(first) || !isSchemaObject(first.properties)) return undefined;
  for (const member of Object.keys(first.properties)) {
    const values: JsonValue[] = [];
    for (const branch of branches) {
      const literal = requiredLiteral(branch, member);
      if (literal === undefined || values.includes(literal.value)) break;
      values.push(literal.value);
    }
    if (values.length === branches.length) return { member, values };
  }
  return undefined;
}

function requiredLiteral(branch: JsonValue | undefined, member: string): { value: JsonValue } | undefined {
  if (!isSchemaObject(branch) || !isSchemaObject(branch.properties) || !Array.isArray(branch.required) || !branch.required.includes(member)) return undefined;
  const schema = Object.hasOwn(branch.properties, member) ? branch.properties[member] : undefined;
  if (!isSchemaObject(schema)) return undefined;
  const literal = "const" in schema ? schema.const : Array.isArray(schema.enum) && schema.enum.length === 1 ? schema.enum[0] : undefined;
  // Only primitives can be told apart by `===`.
  return literal === undefined || (typeof literal === "object" && literal !== null) ? undefined : { value: literal };
}
