/**
 * Whether a strict tool schema (gen's `strictTools`, OpenAI's strict dialect) is also within Anthropic's
 * rules for strict tool use (grammar-constrained sampling): every object closed with
 * `additionalProperties: false`; no recursion; no numeric bounds (`minimum`, `maximum`, the exclusive
 * ones, `multipleOf`); no string bounds (`minLength`, `maxLength`, `pattern`); arrays bounded at most by
 * `minItems` 0 or 1; string formats from its list only. A tool outside them is sent lenient.
 */
import type { JsonSchema, JsonValue } from "../../../shared/schemas-file.js";

const UNSUPPORTED_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "maxItems", "uniqueItems", "patternProperties", "not", "if", "oneOf"];

const SUPPORTED_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"]);

/** Why `parameters` cannot be strict on Anthropic (`undefined`: it can), naming the first problem's path. */
export function anthropicStrictProblem(parameters: JsonSchema): string | undefined {
  return problemAt(parameters, "");
}

function problemAt(value: JsonValue, path: string): string | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const problem = problemAt(item, `${path}[${index}]`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const where = path === "" ? "the parameters" : path;
  if (typeof value.$ref === "string") return `${where} is recursive ($ref)`;
  for (const keyword of UNSUPPORTED_KEYWORDS) if (keyword in value) return `${where} uses ${keyword}`;
  if (typeof value.minItems === "number" && value.minItems > 1) return `${where} uses minItems ${value.minItems}`;
  if (typeof value.format === "string" && !SUPPORTED_FORMATS.has(value.format)) return `${where} uses format ${value.format}`;
  const isObject = value.type === "object" || (Array.isArray(value.type) && value.type.includes("object")) || "properties" in value;
  if (isObject && value.additionalProperties !== false) return `${where} is an open object`;
  for (const [key, child] of Object.entries(value)) {
    // Property names and enum values are data, not schemas.
    if (key === "enum" || key === "const" || key === "required" || key === "examples" || key === "default") continue;
    const childPath = key === "properties" ? path : `${path}${path === "" ? "" : "."}${key}`;
    const problem = key === "properties" && isRecord(child) ? propertiesProblem(child, path) : problemAt(child, childPath);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function propertiesProblem(properties: { [key: string]: JsonValue }, path: string): string | undefined {
  for (const [name, schema] of Object.entries(properties)) {
    const problem = problemAt(schema, path === "" ? name : `${path}.${name}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function isRecord(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
