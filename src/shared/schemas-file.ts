/**
 * The shape of `generated/schemas.json`: the one file the generator writes and the runtime reads.
 * `tools` is a contract relied on outside the repo (OpenAI tool definitions, sorted by name, exactly as
 * sent to a model); the other keys are what the runtime needs to call each function and to detect a
 * stale file. Neither side imports the other: both import this module.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema (draft-07, the Ajv v8 default), kept as plain JSON. */
export type JsonSchema = { [keyword: string]: JsonValue };

/** The schema of one tool's arguments: always a closed object, self-contained (no outside `$ref`). */
export interface ParametersSchema extends JsonSchema {
  type: "object";
  properties: { [name: string]: JsonSchema };
  required: string[];
}

/** An OpenAI Chat Completions tool definition. */
export interface ToolDefinition {
  type: "function";
  function: {
    name: string;
    description: string;
    parameters: ParametersSchema;
    /** Only in `strictTools`: whether OpenAI constrains decoding to `parameters` (docs/gen.md, strict mode). */
    strict?: boolean;
  };
}

/**
 * How the runtime turns a validated arguments object into a call.
 * - `positional`: `f(args[params[0]], args[params[1]], …)`; a missing argument is passed as `undefined`,
 *   so the function's own default initializers apply.
 * - `object`: `f(args)`: the function's only parameter is an object (often destructured), whose own
 *   defaults apply to the members left out.
 */
export type CallingConvention =
  | { kind: "positional"; params: string[] }
  | { kind: "object" };

/** Where a tool's code lives and how to call it. */
export interface ToolBinding {
  /** The tool name; equals the `function.name` of its definition. */
  name: string;
  /** The module to import, relative to the directory of the schemas file, with `/` separators. */
  file: string;
  /** The export to call (equals `name` today; kept apart so a rename stays possible). */
  exportName: string;
  call: CallingConvention;
}

/** What the schemas were generated from, so the runtime can refuse a stale file without a compiler. */
export interface GeneratedInputs {
  /** The tools folder, relative to the directory of the schemas file, with `/` separators. */
  toolsDir: string;
  /**
   * Every source file the tools were generated from (the tool files and the local files they import),
   * relative to the directory of the schemas file, with `/` separators, sorted.
   */
  files: string[];
  /** `hashInputs` of the files above together with every `*.ts` file now in `toolsDir`. */
  hash: string;
}

/**
 * MCP tool annotations, from the tool's JSDoc tags (`@readOnly`, `@destructive`, `@idempotent`,
 * `@openWorld`, each optionally followed by `true` or `false`). Only the tags written appear.
 */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface SchemasFile {
  /** Sorted by name. */
  tools: ToolDefinition[];
  /**
   * The same tools in OpenAI's strict dialect, same order: `strict: true` with strict `parameters`, or
   * the lenient definition with `strict: false` when a tool has no strict form. Sent instead of `tools`
   * in strict mode; arguments are validated against `tools` either way. Absent in files written before
   * strict mode existed.
   */
  strictTools?: ToolDefinition[];
  /** Same order as `tools`. */
  bindings: ToolBinding[];
  /**
   * By tool name, sorted: the schema of what the tool returns, for each tool whose declared return type
   * (awaited) is a JSON object type. Always `"type": "object"` at the top, self-contained like `parameters`.
   * Absent from files written before it existed.
   */
  outputs?: { [toolName: string]: JsonSchema };
  /** By tool name, sorted: the MCP annotations of each tool that declares any. Absent from older files. */
  annotations?: { [toolName: string]: ToolAnnotations };
  inputs: GeneratedInputs;
}
