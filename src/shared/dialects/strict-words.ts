/**
 * Keywords OpenAI's strict dialect refuses, said in words instead: dropped from a strict schema, each
 * becomes a short phrase in that schema's description (`default: 20`, `at least 1 character`), so the
 * model still knows the constraint the local validator goes on enforcing.
 */
import type { JsonSchema, JsonValue } from "../schemas-file.js";
import { definitionRefName } from "../schema-walk.js";

/** The string formats the dialect accepts; any other `format` is dropped and said in words. */
export const STRICT_FORMATS: ReadonlySet<string> = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);

/** Annotations nobody needs in words: dropped silently. */
const SILENT = new Set(["title", "$comment", "$schema", "$id"]);

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The phrase for one dropped keyword, or `undefined` when it says nothing worth keeping. */
export function droppedKeywordWords(keyword: string, value: JsonValue): string | undefined {
  if (SILENT.has(keyword)) return undefined;
  const n = typeof value === "number" ? value : NaN;
  switch (keyword) {
    case "default":
      return `default: ${JSON.stringify(value)}`;
    case "minLength":
      return `at least ${count(n, "character")}`;
    case "maxLength":
      return `at most ${count(n, "character")}`;
    case "minProperties":
      return `at least ${count(n, "property", "properties")}`;
    case "maxProperties":
      return `at most ${count(n, "property", "properties")}`;
    case "uniqueItems":
      return value === true ? "unique items" : undefined;
    case "deprecated":
      return value === true ? "deprecated" : undefined;
    case "examples":
      return Array.isArray(value) && value.length > 0 ? `for example ${value.map((entry) => JSON.stringify(entry)).join(", ")}` : undefined;
    case "format":
      return `format: ${typeof value === "string" ? value : JSON.stringify(value)}`;
    default:
      return `${keyword}: ${JSON.stringify(value)}`;
  }
}

/** `description` with the phrases appended as one sentence: "The most lines. Default: 2000." */
export function describeWithWords(description: JsonValue | undefined, words: readonly string[]): string | undefined {
  const text = typeof description === "string" ? description : undefined;
  if (words.length === 0) return text;
  const joined = words.join("; ");
  const sentence = `${joined.charAt(0).toUpperCase()}${joined.slice(1)}.`;
  if (text === undefined || text.trim() === "") return sentence;
  return `${text}${/[.!?:]$/.test(text.trimEnd()) ? "" : "."} ${sentence}`;
}

/** How a schema reads in a short list ("string", "number or null", "TreeNode"): for tuple positions. */
export function typePhrase(schema: JsonSchema): string {
  if (typeof schema.$ref === "string") return definitionRefName(schema.$ref) ?? schema.$ref;
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((entry) => JSON.stringify(entry)).join(" or ");
  if (Array.isArray(schema.anyOf)) {
    return schema.anyOf.map((branch) => (typeof branch === "object" && branch !== null && !Array.isArray(branch) ? typePhrase(branch) : "?")).join(" or ");
  }
  if (Array.isArray(schema.type)) return schema.type.join(" or ");
  return typeof schema.type === "string" ? schema.type : "any value";
}
