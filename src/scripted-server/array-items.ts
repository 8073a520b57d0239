/**
 * OpenAI's refusal of a function whose `parameters` hold an array schema without `items`, strict or not
 * (Chat Completions and Responses; Anthropic takes such a schema): a 400 whose message names the first
 * one, `Invalid schema for function 'f': In context=('properties', 'configs'), array schema missing
 * items.`, with `param` the tool's parameters (`tools[4].function.parameters`, on the Responses API
 * `tools[1].parameters`) and `code` `invalid_function_parameters`.
 * An array schema is one whose `type` is `"array"` or a list naming it; `prefixItems` alone does not
 * count as `items` (the API refuses a bare tuple too). Every subschema is searched, depth first in the
 * order its keys are written: `properties`, `patternProperties`, `$defs`, `definitions` and
 * `dependentSchemas` members (context: the keyword, then the name), `items`, `additionalItems`,
 * `additionalProperties`, `contains`, `not`, `propertyNames`, `if`, `then` and `else` (the keyword), and
 * the entries of `anyOf`, `oneOf`, `allOf`, `prefixItems` and an `items` list (the keyword, then the
 * index). Each part of the context is quoted as a string, indexes included (`'anyOf', '0'`), as the API
 * writes them; when `type` is a list, the context ends with `'type'` and the index of `"array"` in it.
 */

type Schema = Record<string, unknown>;

const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const SCHEMAS = new Set(["items", "additionalItems", "additionalProperties", "contains", "not", "propertyNames", "if", "then", "else"]);
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems", "items"]);

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function where(context: readonly string[]): string {
  const parts = context.map((part) => `'${part}'`);
  return `In context=(${parts.join(", ")}${parts.length === 1 ? "," : ""})`;
}

/** The first array schema without `items` in `parameters`, in the API's words; undefined when there is none. */
export function missingItemsProblem(parameters: unknown): string | undefined {
  const pending: Array<{ node: unknown; context: string[] }> = [{ node: parameters, context: [] }];
  while (pending.length > 0) {
    const { node, context } = pending.pop()!;
    if (!isSchema(node)) continue;
    const problem = ownProblem(node, context);
    if (problem !== undefined) return problem;
    // Pushed in reverse so the first written subschema is looked at first.
    pending.push(...children(node, context).reverse());
  }
  return undefined;
}

function ownProblem(node: Schema, context: string[]): string | undefined {
  if ("items" in node) return undefined;
  if (node.type === "array") return `${where(context)}, array schema missing items.`;
  const index = Array.isArray(node.type) ? node.type.indexOf("array") : -1;
  return index >= 0 ? `${where([...context, "type", String(index)])}, array schema missing items.` : undefined;
}

function children(node: Schema, context: string[]): Array<{ node: unknown; context: string[] }> {
  return Object.entries(node).flatMap(([key, value]) => {
    if (SCHEMA_LISTS.has(key) && Array.isArray(value)) return value.map((child, index) => ({ node: child, context: [...context, key, String(index)] }));
    if (SCHEMA_MAPS.has(key) && isSchema(value)) return Object.entries(value).map(([name, child]) => ({ node: child, context: [...context, key, name] }));
    if (SCHEMAS.has(key)) return [{ node: value, context: [...context, key] }];
    return [];
  });
}

/** The refusal as the API answers it: its message, and the request field it names as `param`. */
export interface FunctionSchemaRefusal {
  message: string;
  param: string;
}

/**
 * The API's answer to the first tool in `tools` whose parameters hold an array schema without `items`;
 * `dialect` says where a tool keeps them (`tools[i].function.parameters` or `tools[i].parameters`).
 */
export function missingItemsRefusal(tools: unknown, dialect: "chat" | "responses"): FunctionSchemaRefusal | undefined {
  if (!Array.isArray(tools)) return undefined;
  for (const [index, tool] of tools.entries()) {
    const holder = dialect === "chat" ? (isSchema(tool) ? tool.function : undefined) : tool;
    if (!isSchema(holder)) continue;
    const problem = missingItemsProblem(holder.parameters);
    if (problem === undefined) continue;
    const param = dialect === "chat" ? `tools[${index}].function.parameters` : `tools[${index}].parameters`;
    return { message: `Invalid schema for function '${String(holder.name)}': ${problem}`, param };
  }
  return undefined;
}
