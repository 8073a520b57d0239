import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import type { JsonSchema, ParametersSchema } from "../../shared/schemas-file.js";
import { formatPath, isRecord, previewValue, resolvePointer, shorten, type PathSegment } from "./describe-json.js";
import { describeProblems } from "./describe-problems.js";
import { re2Engine, useLinearUniqueItems } from "./linear-validation.js";
import { groupUnionErrors, type FailedUnion } from "./union-errors.js";

const require = createRequire(import.meta.url);

/** One lossless repair made to the model's arguments, for the note the model reads. */
export interface Conversion {
  path: string;
  from: string;
  to: string;
}

export type ValidationResult =
  | { ok: true; ignored: string[]; converted: Conversion[] }
  | { ok: false; problems: string[] };

/**
 * One Ajv instance per executor. `allErrors` so the model hears about every problem at once; `verbose`
 * so each error carries the value that came; `strict: false` because generated schemas may carry
 * annotation keywords Ajv does not know; `validateSchema: false` because checking each schema against the
 * draft-07 meta-schema means compiling that meta-schema first (~45 ms, most of a run's first tool call),
 * while gen writes only schemas that compile in strict Ajv and Ajv itself still refuses a keyword whose
 * value has the wrong type (`minLength: "5"`, `type: "strin"`); patterns and `uniqueItems` in linear time
 * (`linear-validation.ts`), and a schema whose unions multiply the work runs where it can be stopped
 * (`check-arguments.ts`), so no schema makes a call hold the process. Ajv is loaded here, once a run needs it, not at start-up:
 * loading it costs about as much as loading the `openai` SDK, and the first request needs neither.
 * Loaded with `require`, not `import()`: Ajv is CommonJS, and an `import()` of it would first go through
 * the ES module loader (and its hooks, when a TypeScript loader is registered) for nothing.
 */
export async function createAjv(dialect: SchemaDialect = "draft-07"): Promise<Ajv> {
  const AjvClass = ajvClassOf(dialect);
  const addFormats = (require("ajv-formats") as typeof import("ajv-formats")).default;
  const ajv = new AjvClass({ allErrors: true, verbose: true, strict: false, validateSchema: false, ownProperties: true, code: { regExp: re2Engine } });
  return addFormats(useLinearUniqueItems(ajv));
}

/**
 * The JSON Schema dialect a schema is checked in: gen writes draft-07 (Ajv's default class); an MCP
 * server's `inputSchema` is 2020-12 unless its `$schema` says otherwise.
 */
export type SchemaDialect = "draft-07" | "2019-09" | "2020-12";

function ajvClassOf(dialect: SchemaDialect): typeof import("ajv").Ajv {
  if (dialect === "2020-12") return (require("ajv/dist/2020") as typeof import("ajv/dist/2020")).Ajv2020;
  if (dialect === "2019-09") return (require("ajv/dist/2019") as typeof import("ajv/dist/2019")).Ajv2019;
  return (require("ajv") as typeof import("ajv")).Ajv;
}

export function compileArguments(ajv: Ajv, schema: ParametersSchema): ValidateFunction {
  return ajv.compile(schema);
}

/** Repairs can uncover new problems (a decoded object holding a "5"), so a few rounds are allowed. */
const MAX_REPAIR_ROUNDS = 3;

/**
 * Validates `args` in place. Where the schema is closed, unknown keys are deleted; values with a lossless
 * reading of the expected type are converted. Anything else is a problem, and the call must not run.
 * Inside a union (`anyOf`/`oneOf`) a repair is made only when exactly one branch fails for nothing but
 * repairable reasons: then that branch is clearly the one meant.
 */
export function validateArguments(validate: ValidateFunction, args: Record<string, unknown>): ValidationResult {
  const ignored: string[] = [];
  const converted: Conversion[] = [];
  for (let round = 0; ; round++) {
    if (validate(args)) return { ok: true, ignored, converted };
    const errors = validate.errors ?? [];
    const repaired = round < MAX_REPAIR_ROUNDS && repair(args, errors, ignored, converted);
    if (!repaired) return { ok: false, problems: describeProblems(args, errors, validate.schema as JsonSchema, ignored) };
  }
}

function repair(args: Record<string, unknown>, errors: readonly ErrorObject[], ignored: string[], converted: Conversion[]): boolean {
  let repaired = false;
  for (const error of repairCandidates(errors)) {
    if (error.keyword === "additionalProperties") {
      const key = String((error.params as { additionalProperty: unknown }).additionalProperty);
      const parent = resolvePointer(args, error.instancePath);
      if (isRecord(parent.value) && Object.hasOwn(parent.value, key)) {
        delete parent.value[key];
        ignored.push(formatPath([...parent.segments, key]));
        repaired = true;
      }
    } else if (error.keyword === "type") {
      const types = [(error.params as { type: string | string[] }).type].flat();
      const value = convertLosslessly(error.data, types);
      if (value.ok && setAt(args, error.instancePath, value.value)) {
        const path = formatPath(resolvePointer(args, error.instancePath).segments);
        converted.push({ path, from: previewValue(error.data), to: shorten(describeConverted(value.value), 60) });
        repaired = true;
      }
    }
  }
  return repaired;
}

/** A schema path segment under which only some schemas apply, so repairs there need care. */
const BRANCHING = /\/(anyOf|oneOf|not|if|then|else)\//;

function isRepairable(error: ErrorObject): boolean {
  if (error.keyword === "additionalProperties") return true;
  return error.keyword === "type" && convertLosslessly(error.data, [(error.params as { type: string | string[] }).type].flat()).ok;
}

/**
 * The errors whose repair is safe: those outside any union, and those of a top-level union's branch when
 * it is the only branch all of whose errors are repairable (`{"kind": "circle", "r": "5"}` for
 * `{ kind: "circle"; r: number } | { kind: "square"; side: number }`). Nested unions are left alone.
 */
function repairCandidates(errors: readonly ErrorObject[]): ErrorObject[] {
  const { unions, unionOf } = groupUnionErrors(errors);
  const chosen = new Map<FailedUnion, string>();
  for (const union of unions) {
    if (BRANCHING.test(union.error.schemaPath)) continue;
    const fixable = [...union.branches].filter(([branch, branchErrors]) =>
      branchErrors.every((error) => !BRANCHING.test(branchRest(error, union, branch)) && isRepairable(error)),
    );
    if (fixable.length === 1) chosen.set(union, fixable[0]![0]);
  }
  return errors.filter((error) => {
    const union = unionOf.get(error);
    if (union === undefined) return !BRANCHING.test(error.schemaPath);
    const branch = chosen.get(union);
    return branch !== undefined && error.schemaPath.startsWith(`${union.error.schemaPath}/${branch}/`) && !BRANCHING.test(branchRest(error, union, branch));
  });
}

/** The part of an error's schema path below its union branch, e.g. `/properties/r/type`. */
function branchRest(error: ErrorObject, union: FailedUnion, branch: string): string {
  return error.schemaPath.slice(union.error.schemaPath.length + 1 + branch.length);
}

function describeConverted(value: unknown): string {
  return isRecord(value) || Array.isArray(value) ? previewValue(value) : JSON.stringify(value);
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A string whose text is exactly a value of an expected type: a JSON number (an integer only when it is
 * a safe integer, so no digit is lost), `true`/`false`, or JSON text of an object or array. Numbers are
 * never turned into strings: JSON parsing has already normalized their text (`1.0` → `1`), so the string
 * the model meant is unknown.
 */
function convertLosslessly(value: unknown, types: readonly string[]): { ok: true; value: unknown } | { ok: false } {
  if (typeof value !== "string") return { ok: false };
  if ((types.includes("number") || types.includes("integer")) && JSON_NUMBER.test(value)) {
    const number = Number(value);
    const integerText = !/[.eE]/.test(value);
    if (Number.isSafeInteger(number) && (integerText || types.includes("integer"))) return { ok: true, value: number };
    if (types.includes("number") && !integerText && Number.isFinite(number)) return { ok: true, value: number };
  }
  if (types.includes("boolean") && (value === "true" || value === "false")) return { ok: true, value: value === "true" };
  if (types.includes("object") || types.includes("array")) {
    try {
      const parsed: unknown = JSON.parse(value);
      if ((types.includes("object") && isRecord(parsed)) || (types.includes("array") && Array.isArray(parsed))) {
        return { ok: true, value: parsed };
      }
    } catch {
      return { ok: false };
    }
  }
  return { ok: false };
}

/** Replaces the value at a JSON pointer, defining (never assigning) so a `__proto__` key stays a plain key. */
function setAt(root: Record<string, unknown>, pointer: string, value: unknown): boolean {
  const cut = pointer.lastIndexOf("/");
  if (cut < 0) return false;
  const parent = resolvePointer(root, pointer.slice(0, cut)).value;
  const last: PathSegment = pointer.slice(cut + 1).replace(/~1/g, "/").replace(/~0/g, "~");
  if (Array.isArray(parent)) {
    parent[Number(last)] = value;
    return true;
  }
  if (!isRecord(parent)) return false;
  Object.defineProperty(parent, last, { value, writable: true, enumerable: true, configurable: true });
  return true;
}
