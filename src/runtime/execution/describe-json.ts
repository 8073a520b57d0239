/**
 * Short, bounded descriptions of model-sent values, argument paths and schema types, for the messages
 * the model reads. Nothing here recurses into a value: arguments may be 10 MB strings or 100k levels deep.
 */
import type { JsonSchema, JsonValue } from "../../shared/schemas-file.js";

/** Cuts `text` to at most `max` characters plus an ellipsis, never splitting a surrogate pair. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  return `${text.slice(0, end)}…`;
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** What came, in a few words: `string "abc"`, `5`, `null`, `an array of 3 items`, `an object`. */
export function previewValue(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return `string ${JSON.stringify(shorten(value, 40))}`;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? "" : "s"}`;
  if (typeof value === "object") return "an object";
  return typeof value;
}

/** A segment of an argument path, as the model wrote it: a key or an array index. */
export type PathSegment = string | number;

/** `options.color`, `items[2].name`, `["odd key"]`; the empty path is the arguments object itself. */
export function formatPath(segments: readonly PathSegment[]): string {
  if (segments.length === 0) return "(arguments)";
  let out = "";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(shorten(segment, 60))}]`;
  }
  return out;
}

/**
 * Walks an Ajv `instancePath` (a JSON pointer) through `root`, telling array indices from keys, and
 * returns the segments plus the value found (own properties only, so `__proto__` is an ordinary key).
 */
export function resolvePointer(root: unknown, pointer: string): { segments: PathSegment[]; value: unknown } {
  const segments: PathSegment[] = [];
  let value = root;
  if (pointer === "") return { segments, value };
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(value)) {
      const index = Number(key);
      segments.push(index);
      value = value[index];
    } else {
      segments.push(key);
      value = isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
    }
  }
  return { segments, value };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A compact TypeScript-like type for a schema: `string`, `integer`, `"a" | "b"`, `string[]`,
 * `{ color: string; size?: number }`. Local `$ref`s are looked up in `root`; nested objects deeper than
 * two levels are just `object`, so recursive definitions terminate.
 */
export function describeSchemaType(schema: JsonValue | undefined, root: JsonSchema, depth = 0): string {
  if (schema === true || schema === undefined) return "any";
  if (!isSchemaObject(schema)) return "nothing";
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.split("/").pop() ?? "object";
    const target = depth < 2 ? resolveLocalRef(root, schema.$ref) : undefined;
    return target === undefined ? name : describeSchemaType(target, root, depth + 1);
  }
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((item) => JSON.stringify(item)).join(" | ");
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.map((branch) => describeSchemaType(branch, root, depth)).join(" | ");
  const types = Array.isArray(schema.type) ? schema.type : typeof schema.type === "string" ? [schema.type] : [];
  if (types.length === 0) return isSchemaObject(schema.properties) ? describeObject(schema, root, depth) : "any";
  return types.map((type) => describeNamedType(String(type), schema, root, depth)).join(" | ");
}

function describeNamedType(type: string, schema: JsonSchema, root: JsonSchema, depth: number): string {
  if (type === "array") {
    const items = describeSchemaType(Array.isArray(schema.items) ? undefined : schema.items, root, depth + 1);
    return items.includes(" ") ? `(${items})[]` : `${items}[]`;
  }
  if (type === "object") return describeObject(schema, root, depth);
  return type;
}

function describeObject(schema: JsonSchema, root: JsonSchema, depth: number): string {
  const properties = isSchemaObject(schema.properties) ? schema.properties : {};
  const names = Object.keys(properties);
  if (names.length === 0 || depth >= 3) return "object";
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const members = names.map(
    (name) => `${name}${required.has(name) ? "" : "?"}: ${describeSchemaType(properties[name], root, depth + 1)}`,
  );
  return `{ ${members.join("; ")} }`;
}

/** `#/definitions/Name` (or any local JSON pointer) inside `root`. */
export function resolveLocalRef(root: JsonSchema, ref: string): JsonValue | undefined {
  if (!ref.startsWith("#/")) return undefined;
  let value: JsonValue | undefined = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    value = isSchemaObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
  }
  return value;
}

export function isSchemaObject(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
