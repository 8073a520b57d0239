/**
 * One executor run as an MCP `tools/call` result. Every outcome but `ok` is a result with `isError: true`
 * whose text is exactly what the agent loop's model would read. A tool with an output schema answers
 * `structuredContent` (the returned object as JSON, checked against that schema first) and the same JSON
 * as text; JSON is never cut, so an object over the result cap is a tool error naming its size, and an
 * object that does not match is a tool error listing how, never a wrong payload. A result with images or
 * audio (`toolImage`, `toolAudio`) is its items in order: MCP `text`, `image` and `audio` content, the
 * media as base64 `data` with their `mimeType`.
 */
import type { ValidateFunction } from "ajv";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema } from "../shared/schemas-file.js";
import { describeProblems } from "../runtime/execution/describe-problems.js";
import type { ToolRun } from "../runtime/execution/tool-executor.js";

export interface OutputCheck {
  schema: JsonSchema;
  validate: ValidateFunction;
}

export function toolResult(name: string, run: ToolRun, output: OutputCheck | undefined, maxResultChars: number): CallToolResult {
  if (run.status !== "ok") return errorResult(run.content);
  if (run.items !== undefined) {
    if (output !== undefined) {
      return errorResult(`The tool ${name} returned an image or audio where its declared return type is an object, so nothing was sent. This is a bug in the tool, not an argument problem.`);
    }
    return { content: run.items.map((item) => (item.type === "text" ? item : { type: item.type, data: item.data, mimeType: item.mimeType })) };
  }
  if (output === undefined || run.returned === undefined || run.rendered === undefined) return { content: [{ type: "text", text: run.content }] };
  const { value, notes } = run.returned;
  const text = run.rendered;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return errorResult(`The tool ${name} returned ${Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`} where its declared return type is an object, so nothing was sent. This is a bug in the tool, not an argument problem.`);
  }
  // Rendered once, by the executor: a second `toJSON` or getter could answer differently, or throw.
  if (text.length > maxResultChars) {
    return errorResult(`The tool ${name} returned a JSON object of ${text.length} characters, over the limit of ${maxResultChars}; JSON is never cut, so nothing was sent. Ask for less at a time.`);
  }
  const json = parsedOrUndefined(text);
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return errorResult(`The tool ${name} returned an object whose JSON is not an object, so nothing was sent. This is a bug in the tool, not an argument problem.`);
  }
  if (!output.validate(json)) {
    const problems = describeProblems(json, output.validate.errors ?? [], output.schema).map((line) => line.replace(/: not a parameter of this tool$/, ": not in the declared return type"));
    return errorResult([`The tool ${name} returned an object that does not match its declared return type, so nothing was sent:`, ...problems, "This is a bug in the tool, not an argument problem."].join("\n"));
  }
  const noteBlocks = notes.length > 0 ? [{ type: "text" as const, text: notes.join("\n") }] : [];
  return { content: [...noteBlocks, { type: "text", text }], structuredContent: json as Record<string, unknown> };
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A `toJSON` that returned nothing: "(no output)".
    return undefined;
  }
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
