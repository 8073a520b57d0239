/**
 * What the scripted server refuses in a Responses API request, at least as strictly as the real API:
 * unknown fields in the body or an input item (so an SDK's `parsed_arguments` echoed back is a 400);
 * a `function_call_output` without its `function_call` earlier in the input; a `function_call` never
 * answered; a reasoning item that is not exactly one the server issued (with `store: false` the API has
 * only its encrypted content to go on); function tools whose `strict` is left out (the API then takes
 * `true`) or `true` for a schema outside OpenAI's strict dialect, and any whose parameters hold an array
 * schema without `items` (array-items.ts); a `function_call_output` list item that
 * is not `input_text` or an `input_image` holding a real image of the type it claims.
 */
import { missingItemsProblem } from "./array-items.js";
import { imageDataProblem } from "./image-data.js";
import { strictDialectViolations } from "./strict-dialect.js";

const BODY_KEYS = ["model", "input", "instructions", "tools", "tool_choice", "stream", "store", "include", "reasoning", "max_output_tokens", "parallel_tool_calls", "temperature", "top_p", "text", "truncation", "metadata", "service_tier", "user", "prompt_cache_key", "stream_options"];

const ITEM_KEYS: Record<string, readonly string[]> = {
  message: ["type", "role", "content", "id", "status"],
  function_call: ["type", "call_id", "name", "arguments", "id", "status"],
  function_call_output: ["type", "call_id", "output", "id", "status"],
  reasoning: ["type", "id", "summary", "encrypted_content", "content", "status"],
};

/** Reasoning items the server sent, by id, exactly as sent (JSON), to check what comes back. */
export type IssuedReasoning = Map<string, string>;

export function responsesViolations(body: Record<string, unknown>, issued: IssuedReasoning): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(body)) if (!BODY_KEYS.includes(key)) problems.push(`Unknown parameter: '${key}'.`);
  if (typeof body.model !== "string" || body.model === "") problems.push("Missing required parameter: 'model'.");
  if (body.instructions !== undefined && typeof body.instructions !== "string") problems.push("Invalid type for 'instructions': expected a string.");
  problems.push(...toolsProblems(body.tools));
  if (typeof body.input === "string") return problems;
  if (!Array.isArray(body.input) || body.input.length === 0) return [...problems, "Invalid 'input': expected a string or a non-empty array of items."];
  const calls = new Set<string>();
  const answered = new Set<string>();
  body.input.forEach((item: unknown, i) => {
    const at = `input[${i}]`;
    if (!isRecord(item)) return void problems.push(`Invalid '${at}': expected an object.`);
    const type = item.type ?? (item.role !== undefined ? "message" : undefined);
    const keys = typeof type === "string" ? ITEM_KEYS[type] : undefined;
    if (keys === undefined) return void problems.push(`Invalid value for '${at}.type': ${JSON.stringify(item.type)}.`);
    for (const key of Object.keys(item)) if (!keys.includes(key)) problems.push(`Unknown parameter: '${at}.${key}'.`);
    switch (type) {
      case "message":
        if (!["user", "assistant", "system", "developer"].includes(String(item.role))) problems.push(`Invalid value for '${at}.role'.`);
        if (typeof item.content !== "string" && !Array.isArray(item.content)) problems.push(`Invalid type for '${at}.content': expected a string or an array.`);
        break;
      case "function_call":
        if (typeof item.call_id !== "string" || item.call_id === "") problems.push(`Missing required parameter: '${at}.call_id'.`);
        else if (calls.has(item.call_id)) problems.push(`Duplicate value for '${at}.call_id': ${item.call_id}.`);
        else calls.add(item.call_id);
        if (typeof item.name !== "string" || item.name === "") problems.push(`Missing required parameter: '${at}.name'.`);
        if (typeof item.arguments !== "string") problems.push(`Invalid type for '${at}.arguments': expected a string.`);
        break;
      case "function_call_output":
        if (typeof item.call_id !== "string" || !calls.has(item.call_id)) problems.push(`No tool call found for function call output with call_id ${String(item.call_id)}.`);
        else if (answered.has(item.call_id)) problems.push(`Duplicate function call output for call_id ${item.call_id}.`);
        else answered.add(item.call_id);
        if (typeof item.output !== "string" && !Array.isArray(item.output)) problems.push(`Invalid type for '${at}.output': expected a string.`);
        if (Array.isArray(item.output)) item.output.forEach((part: unknown, k) => problems.push(...outputItemProblems(part, `${at}.output[${k}]`)));
        break;
      case "reasoning": {
        const sent = typeof item.id === "string" ? issued.get(item.id) : undefined;
        if (sent === undefined) problems.push(`Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false.`);
        else if (sent !== JSON.stringify(item)) problems.push(`Invalid '${at}': the reasoning item differs from the one the API returned (encrypted content cannot be modified).`);
        break;
      }
    }
  });
  for (const id of calls) if (!answered.has(id)) problems.push(`No tool output found for function call ${id}.`);
  return problems;
}

/**
 * An item of a `function_call_output` list: `input_text` with its text, or `input_image` with a base64
 * data URL of an image of one of the four types whose bytes are that type (the runtime sends no file ids,
 * URLs or files).
 */
function outputItemProblems(part: unknown, at: string): string[] {
  if (typeof part !== "object" || part === null || Array.isArray(part)) return [`Invalid type for '${at}': expected an object.`];
  const item = part as Record<string, unknown>;
  const keys = item.type === "input_text" ? ["type", "text"] : item.type === "input_image" ? ["type", "image_url", "file_id", "detail"] : undefined;
  if (keys === undefined) return [`Invalid value: '${String(item.type)}'. Supported values are: 'input_text', 'input_image', and 'input_file'.`];
  const problems = Object.keys(item).filter((key) => !keys.includes(key)).map((key) => `Unknown parameter: '${at}.${key}'.`);
  if (item.type === "input_text") {
    if (typeof item.text !== "string") problems.push(`Missing required parameter: '${at}.text'.`);
    return problems;
  }
  const url = typeof item.image_url === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(item.image_url) : null;
  if (url === null) return [...problems, `Invalid '${at}.image_url': the runtime sends images as base64 data URLs (data:image/png;base64,...).`];
  if (imageDataProblem(url[1]!, url[2]) !== undefined) {
    problems.push(`Invalid '${at}.image_url'. The image data you provided does not represent a valid image. Supported image formats: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'].`);
  }
  return problems;
}

function toolsProblems(tools: unknown): string[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) return ["Invalid type for 'tools': expected an array."];
  const problems: string[] = [];
  tools.forEach((tool: unknown, i) => {
    if (!isRecord(tool) || tool.type !== "function") return void problems.push(`Invalid value for 'tools[${i}].type': expected 'function'.`);
    for (const key of Object.keys(tool)) if (!["type", "name", "description", "parameters", "strict"].includes(key)) problems.push(`Unknown parameter: 'tools[${i}].${key}'.`);
    if (typeof tool.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) problems.push(`Invalid 'tools[${i}].name'.`);
    if (tool.strict !== undefined && typeof tool.strict !== "boolean") problems.push(`Invalid type for 'tools[${i}].strict': expected a boolean.`);
    // The API's default is strict: a lenient schema must say `strict: false`. A missing `items` is refused either way, first.
    const strictProblem = missingItemsProblem(tool.parameters) ?? (tool.strict !== false ? strictDialectViolations(tool.parameters)[0] : undefined);
    if (strictProblem !== undefined) problems.push(`Invalid schema for function '${String(tool.name)}': ${strictProblem}`);
  });
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
