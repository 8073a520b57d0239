import type { ErrorObject } from "ajv";

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
