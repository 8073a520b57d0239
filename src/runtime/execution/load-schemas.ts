import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { currentInputsHash } from "../../shared/inputs-hash.js";
import { commandLine } from "../../shared/package-layout.js";
import type { SchemasFile } from "../../shared/schemas-file.js";
import { NotRegularFileError, readRegularFile } from "../workspace/regular-file.js";
import { findUnconfinedBinding } from "./confine-bindings.js";
import { genCommandFor } from "./gen-command.js";
import { isRecord } from "./describe-json.js";
import { jsonParseMessage } from "../../shared/json-parse-message.js";

export type LoadSchemasResult = { ok: true; schemas: SchemasFile } | { ok: false; error: { message: string } };

/**
 * The largest schemas file read (64 MiB): gen writes at most 1 MiB of `parameters` per tool, and a file
 * past this is refused at once instead of being parsed for minutes.
 */
export const MAX_SCHEMAS_FILE_BYTES = 67_108_864;

/**
 * Reads `generated/schemas.json` and refuses it when it is missing, unreadable, not a schemas file, or
 * stale (the tool sources changed since it was written: the hash recorded by the generator no longer
 * matches the files), or not a regular file (a device or FIFO is never read), or binding a tool to
 * anything but a tool file of its tools folder (`confine-bindings.ts`). Never throws; the message says what is wrong and what to run
 * from `cwd` (`gen-command.ts`).
 */
export function loadSchemas(schemasPath: string, cwd = process.cwd()): LoadSchemasResult {
  // Worked out only for a refusal: finding the project root reads the folders upwards.
  const runGen = () => `run ${genCommandFor(schemasPath, undefined, cwd)}`;
  let text: string;
  try {
    const size = statSync(schemasPath).size;
    if (size > MAX_SCHEMAS_FILE_BYTES) {
      return failure(`${schemasPath} is ${size} bytes, over the limit of ${MAX_SCHEMAS_FILE_BYTES} for a schemas file, so it was not read: ${runGen()} to write it again.`);
    }
    text = readRegularFile(schemasPath);
  } catch (error) {
    if (error instanceof NotRegularFileError) return failure(`${error.message}: give the path of the schemas file ${commandLine("gen")} writes.`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return failure(`${schemasPath} does not exist: ${runGen()} to generate the tool schemas.`);
    return failure(`${schemasPath} could not be read (${code ?? String(error)}): check its permissions, or ${runGen()} to write it again.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return failure(`${schemasPath} is not valid JSON (${jsonParseMessage(error)}): ${runGen()} to write it again.`);
  }
  const shapeProblem = findShapeProblem(value);
  if (shapeProblem !== undefined) {
    return failure(`${schemasPath} is not a schemas file: ${shapeProblem}. ${capitalize(runGen())} to write it again.`);
  }
  const schemas = value as SchemasFile;
  const schemasDir = path.dirname(schemasPath);
  const regenerate = () => capitalize(`run ${genCommandFor(schemasPath, schemas.inputs.toolsDir, cwd)}`);
  const hash = currentInputsHash(schemasDir, schemas.inputs);
  if (hash === undefined) {
    const gone = [schemas.inputs.toolsDir, ...schemas.inputs.files].find((file) => !existsSync(path.resolve(schemasDir, file)));
    const what = gone === undefined ? "a file it was generated from cannot be read" : `${gone} no longer exists`;
    return failure(`${schemasPath} is out of date: ${what}. ${regenerate()} to regenerate it.`);
  }
  if (hash !== schemas.inputs.hash) {
    return failure(`${schemasPath} is out of date: the tool sources changed since it was generated. ${regenerate()} to regenerate it.`);
  }
  // The staleness record is easily forged: this rule holds whatever it says.
  const unconfined = findUnconfinedBinding(schemasDir, schemas);
  if (unconfined !== undefined) {
    return failure(`${schemasPath} cannot be served: ${unconfined}. ${regenerate()} to write it again.`);
  }
  return { ok: true, schemas };
}

function failure(message: string): LoadSchemasResult {
  return { ok: false, error: { message } };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The first way `value` differs from a SchemasFile, in words, or `undefined` when it has the shape. */
function findShapeProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return "the top level is not an object";
  const { tools, bindings, inputs } = value;
  if (!Array.isArray(tools)) return `"tools" is not an array`;
  if (!Array.isArray(bindings)) return `"bindings" is not an array`;
  if (tools.length !== bindings.length) return `"tools" has ${tools.length} entries but "bindings" has ${bindings.length}`;
  const names = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    const fn = isRecord(tool) ? tool.function : undefined;
    if (!isRecord(tool) || tool.type !== "function" || !isRecord(fn) || typeof fn.name !== "string") {
      return `tools[${index}] is not a function tool definition with a name`;
    }
    if (names.has(fn.name)) return `tool ${fn.name} is defined twice`;
    names.add(fn.name);
    const parameters = fn.parameters;
    if (!isRecord(parameters) || parameters.type !== "object" || !isRecord(parameters.properties) || !isStringArray(parameters.required)) {
      return `the parameters of tool ${fn.name} are not an object schema with "properties" and "required"`;
    }
    const binding: unknown = bindings[index];
    if (!isRecord(binding) || binding.name !== fn.name || typeof binding.file !== "string" || typeof binding.exportName !== "string") {
      return `bindings[${index}] does not describe tool ${fn.name} (name, file, exportName)`;
    }
    const call = binding.call;
    const validCall = isRecord(call) && (call.kind === "object" || (call.kind === "positional" && isStringArray(call.params)));
    if (!validCall) return `the calling convention of tool ${fn.name} is neither "object" nor "positional" with params`;
  }
  const { outputs, annotations } = value;
  if (outputs !== undefined && !(isRecord(outputs) && Object.values(outputs).every((schema) => isRecord(schema) && schema.type === "object"))) {
    return `"outputs" is not a map of tool names to object schemas`;
  }
  if (annotations !== undefined && !(isRecord(annotations) && Object.values(annotations).every((hints) => isRecord(hints) && Object.values(hints).every((hint) => typeof hint === "boolean")))) {
    return `"annotations" is not a map of tool names to boolean hints`;
  }
  const strictProblem = findStrictToolsProblem(value.strictTools, tools);
  if (strictProblem !== undefined) return strictProblem;
  if (!isRecord(inputs) || typeof inputs.toolsDir !== "string" || !isStringArray(inputs.files) || typeof inputs.hash !== "string") {
    return `"inputs" lacks toolsDir, files or hash`;
  }
  return undefined;
}

/** `strictTools`, when present, must name the same tools in the same order. */
function findStrictToolsProblem(strictTools: unknown, tools: unknown[]): string | undefined {
  if (strictTools === undefined) return undefined;
  if (!Array.isArray(strictTools)) return `"strictTools" is not an array`;
  if (strictTools.length !== tools.length) return `"tools" has ${tools.length} entries but "strictTools" has ${strictTools.length}`;
  for (const [index, tool] of strictTools.entries()) {
    const fn = isRecord(tool) ? tool.function : undefined;
    const name = (tools[index] as { function: { name: string } }).function.name;
    if (!isRecord(tool) || tool.type !== "function" || !isRecord(fn) || fn.name !== name || !isRecord(fn.parameters) || typeof fn.strict !== "boolean") {
      return `strictTools[${index}] is not the strict definition of tool ${name}`;
    }
  }
  return undefined;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
