import type { ErrorObject } from "ajv";
import type { JsonSchema, JsonValue } from "../../shared/schemas-file.js";
import { groupUnionErrors } from "./union-errors.js";
import { describeSchemaType, formatPath, isSchemaObject, previewValue, resolvePointer, shorten } from "./describe-json.js";

/** Enough lines to fix a call; a model sending hundreds of bad items needs the pattern, not the list. */
const MAX_PROBLEM_LINES = 20;

/**
 * One line per problem: first the unknown keys already dropped (`unknownPaths`), then one per Ajv error:
 * where (argument path), what was expected, what came. Errors inside a failed union are folded into the
 * union's own line, and a type error is dropped when an `enum`/`const` at the same place already says
 * more. At most twenty lines, then a count of the rest.
 */
export function describeProblems(args: unknown, errors: readonly ErrorObject[], root: JsonSchema, unknownPaths: readonly string[] = []): string[] {
  const { unionOf } = groupUnionErrors(errors);
  const literalPlaces = new Set(errors.filter((error) => error.keyword === "enum" || error.keyword === "const").map((error) => error.instancePath));
  const kept = errors.filter((error) => !unionOf.has(error) && !(error.keyword === "type" && literalPlaces.has(error.instancePath)));
  const unknownLines = unknownPaths.slice(0, MAX_PROBLEM_LINES).map((path) => `- ${path}: not a parameter of this tool`);
  const errorLines = kept.slice(0, MAX_PROBLEM_LINES - unknownLines.length).map((error) => describeProblem(args, error, root));
  const total = unknownPaths.length + kept.length;
  const lines = [...unknownLines, ...errorLines];
  return total <= MAX_PROBLEM_LINES ? lines : [...lines, `- …and ${total - MAX_PROBLEM_LINES} more problems`];
}

function describeProblem(args: unknown, error: ErrorObject, root: JsonSchema): string {
  const place = resolvePointer(args, error.instancePath).segments;
  const params = error.params as Record<string, JsonValue | undefined>;
  if (error.keyword === "required") {
    const name = String(params.missingProperty);
    const parent = isSchemaObject(error.parentSchema as JsonValue) ? (error.parentSchema as { properties?: JsonValue }) : {};
    const properties = isSchemaObject(parent.properties) ? parent.properties : {};
    return `- ${formatPath([...place, name])}: missing (required, ${describeSchemaType(properties[name], root)})`;
  }
  if (error.keyword === "additionalProperties") {
    return `- ${formatPath([...place, String(params.additionalProperty)])}: not a parameter of this tool`;
  }
  return `- ${formatPath(place)}: expected ${expectation(error, params, root)}, got ${previewValue(error.data)}`;
}

function expectation(error: ErrorObject, params: Record<string, JsonValue | undefined>, root: JsonSchema): string {
  const schema = error.schema as JsonValue;
  switch (error.keyword) {
    case "type":
      return [params.type].flat().join(" or ");
    case "enum":
      return `one of ${shorten((Array.isArray(params.allowedValues) ? params.allowedValues : []).map((value) => JSON.stringify(value)).join(", "), 200)}`;
    case "const":
      return shorten(JSON.stringify(params.allowedValue) ?? "a constant", 200);
    case "anyOf":
    case "oneOf":
      return shorten(describeSchemaType({ anyOf: schema }, root), 200);
    case "format":
      return `a string in ${String(params.format)} format`;
    case "pattern":
      return `a string matching /${String(params.pattern)}/`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `a number ${String(params.comparison)} ${String(params.limit)}`;
    case "minLength":
      return `at least ${String(params.limit)} characters`;
    case "maxLength":
      return `at most ${String(params.limit)} characters`;
    case "minItems":
      return `at least ${String(params.limit)} items`;
    case "maxItems":
      return `at most ${String(params.limit)} items`;
    case "minProperties":
      return `at least ${String(params.limit)} properties`;
    case "maxProperties":
      return `at most ${String(params.limit)} properties`;
    case "multipleOf":
      // The generator writes integers as `multipleOf: 1`.
      return params.multipleOf === 1 ? "an integer" : `a multiple of ${String(params.multipleOf)}`;
    case "uniqueItems":
      return `no duplicate items (items ${String(params.j)} and ${String(params.i)} are equal)`;
    default:
      return `a value satisfying ${error.keyword} (${shorten(error.message ?? "", 200)})`;
  }
}
