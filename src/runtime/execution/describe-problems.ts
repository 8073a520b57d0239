import type { ErrorObject } from "ajv";
import type { JsonSchema, JsonValue } from "../../shared/schemas-file.js";
import { chooseBranch, groupUnionErrors, type FailedUnion } from "./union-errors.js";
import { describeSchemaType, formatPath, isSchemaObject, previewValue, resolvePointer, shorten, type PathSegment } from "./describe-json.js";

/** Enough lines to fix a call; a model sending hundreds of bad items needs the pattern, not the list. */
const MAX_PROBLEM_LINES = 20;

/** How a problem line names the place of a problem: the argument path, or a union branch and the path inside it. */
type PlaceText = (segments: readonly PathSegment[]) => string;

/**
 * One line per problem: first the unknown keys already dropped (`unknownPaths`), then one per Ajv error:
 * where (argument path), what was expected, what came. A failed union is described by the branch the
 * value was meant for (`chooseBranch`: its discriminator's value, else the branch with the fewest
 * problems) with that branch's problems, else folded into one line naming every branch. A type error is
 * dropped when an `enum`/`const` at the same place already says more. At most twenty lines, then a count
 * of the rest; only the lines shown are described, so 100k failing items cost what twenty do.
 */
export function describeProblems(args: unknown, errors: readonly ErrorObject[], root: JsonSchema, unknownPaths: readonly string[] = []): string[] {
  const unknownLines = unknownPaths.slice(0, MAX_PROBLEM_LINES).map((path) => `- ${path}: not a parameter of this tool`);
  const { lines, undescribed } = problemLines(args, errors, root, formatPath, MAX_PROBLEM_LINES - unknownLines.length);
  const total = unknownPaths.length + lines.length + undescribed;
  const shown = [...unknownLines, ...lines].slice(0, MAX_PROBLEM_LINES);
  return total <= MAX_PROBLEM_LINES ? shown : [...shown, `- …and ${total - MAX_PROBLEM_LINES} more problems`];
}

/** Lines for `errors` until `room` is used up; `undescribed` counts the errors left over. */
function problemLines(args: unknown, errors: readonly ErrorObject[], root: JsonSchema, placeText: PlaceText, room: number): { lines: string[]; undescribed: number } {
  const { unions, unionOf } = groupUnionErrors(errors);
  const unionAt = new Map(unions.map((union) => [union.error, union]));
  const literalPlaces = new Set(errors.filter((error) => error.keyword === "enum" || error.keyword === "const").map((error) => error.instancePath));
  const kept = errors.filter((error) => !unionOf.has(error) && !(error.keyword === "type" && literalPlaces.has(error.instancePath)));
  const lines: string[] = [];
  let described = 0;
  for (const error of kept) {
    if (lines.length >= room) break;
    const union = unionAt.get(error);
    lines.push(...(union === undefined ? [describeProblem(args, error, root, placeText)] : unionLines(args, union, root, placeText, room - lines.length)));
    described += 1;
  }
  return { lines, undescribed: kept.length - described };
}

function unionLines(args: unknown, union: FailedUnion, root: JsonSchema, placeText: PlaceText, room: number): string[] {
  const choice = chooseBranch(union, root);
  const place = resolvePointer(args, union.error.instancePath).segments;
  if (choice === undefined) return [describeProblem(args, union.error, root, placeText)];
  if (choice.kind === "unknown-discriminator") {
    const where = placeText([...place, choice.member]);
    const allowed = choice.allowed.map((value) => JSON.stringify(value)).join(", ");
    return [choice.given === undefined ? `- ${where}: missing (required, one of ${allowed})` : `- ${where}: expected one of ${allowed}, got ${previewValue(choice.given.value)}`];
  }
  const branches = union.error.schema as JsonValue[];
  const label = choice.kind === "discriminated"
    ? `${placeText(place)} (${choice.member} ${JSON.stringify(choice.value)})`
    : `${placeText(place)} (as ${shorten(describeSchemaType(branches[choice.index], root), 100)})`;
  const inBranch: PlaceText = (segments) => (segments.length <= place.length ? label : `${label}: ${formatPath(segments.slice(place.length))}`);
  const { lines, undescribed } = problemLines(args, union.branches.get(String(choice.index)) ?? [], root, inBranch, room);
  return undescribed === 0 ? lines : [...lines, `- ${label}: …and ${undescribed} more problems`];
}

function describeProblem(args: unknown, error: ErrorObject, root: JsonSchema, placeText: PlaceText): string {
  const place = resolvePointer(args, error.instancePath).segments;
  const params = error.params as Record<string, JsonValue | undefined>;
  if (error.keyword === "required") {
    const name = String(params.missingProperty);
    const parent = isSchemaObject(error.parentSchema as JsonValue) ? (error.parentSchema as { properties?: JsonValue }) : {};
    const properties = isSchemaObject(parent.properties) ? parent.properties : {};
    return `- ${placeText([...place, name])}: missing (required, ${describeSchemaType(properties[name], root)})`;
  }
  if (error.keyword === "additionalProperties") {
    return `- ${placeText([...place, String(params.additionalProperty)])}: not a parameter of this tool`;
  }
  return `- ${placeText(place)}: expected ${expectation(error, params, root)}, got ${previewValue(error.data)}`;
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
