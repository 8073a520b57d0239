/**
 * Every text the model reads about a tool call, in one place (the catalogue in docs/tool-execution.md).
 * Each says what went wrong and what to do next, in a few lines; model-sent text inside is shortened.
 */
import type { ParametersSchema } from "../../shared/schemas-file.js";
import { commandLine } from "../../shared/package-layout.js";
import { describeSchemaType, previewValue, shorten } from "./describe-json.js";
import type { ToolInputProblem } from "./tool-input-error.js";
import type { Conversion } from "./validate-arguments.js";

const NAME_CHARS = 100;
const RECEIVED_CHARS = 200;
const ERROR_CHARS = 500;
/**
 * Arguments named in one note: the rest are counted, so the notes before a result stay a few thousand
 * characters whatever the model sent, and a tool's own closing note survives the cut of the result.
 */
const NOTE_ITEMS = 10;

export function quoteName(name: string): string {
  return JSON.stringify(shorten(name, NAME_CHARS));
}

/** `Parameters: path (string, required); start (integer, optional)`. */
function parametersLine(schema: ParametersSchema): string {
  const required = new Set(schema.required);
  const entries = Object.keys(schema.properties).map(
    (name) => `${name} (${describeSchemaType(schema.properties[name], schema, 1)}, ${required.has(name) ? "required" : "optional"})`,
  );
  return `Parameters: ${entries.length === 0 ? "none" : entries.join("; ")}`;
}

export function invalidJsonMessage(tool: string, parserMessage: string, received: string, schema: ParametersSchema): string {
  return [
    `The arguments for ${tool} were not valid JSON: ${shorten(parserMessage, RECEIVED_CHARS)}`,
    `Received (${received.length} characters): ${shorten(received, RECEIVED_CHARS)}`,
    parametersLine(schema),
    `Send the arguments again as one JSON object with the parameters as keys.`,
  ].join("\n");
}

export function oversizedArgumentsMessage(tool: string, length: number, limit: number, schema: ParametersSchema): string {
  return [
    `The arguments for ${tool} are ${length} characters of JSON, over the limit of ${limit}, so they were not read and it was not run.`,
    parametersLine(schema),
    `Send shorter arguments: split the work into several calls.`,
  ].join("\n");
}

export function notAnObjectMessage(tool: string, received: unknown, schema: ParametersSchema): string {
  return [
    `The arguments for ${tool} must be a JSON object with the parameters as keys, but came as ${previewValue(received)}.`,
    parametersLine(schema),
    `Send the arguments again as one JSON object.`,
  ].join("\n");
}

export function unknownToolMessage(name: string, available: readonly string[], suggestion: string | undefined): string {
  const hint = suggestion === undefined ? "" : ` Did you mean ${suggestion}?`;
  return `There is no tool named ${quoteName(name)}.${hint} Available tools: ${available.length === 0 ? "none" : available.join(", ")}.`;
}

export function invalidArgumentsMessage(tool: string, problems: readonly string[], schema: ParametersSchema): string {
  return [
    `The arguments for ${tool} do not match its parameters, so it was not run:`,
    ...problems,
    parametersLine(schema),
    `Fix these and call ${tool} again.`,
  ].join("\n");
}

/** A `ToolInputError`: shaped like a schema failure, under a header that says the tool itself refused. */
export function toolRejectedArgumentMessage(tool: string, problem: ToolInputProblem, schema: ParametersSchema): string {
  const message = oneLineMessage(problem.message);
  return [
    `The tool ${tool} rejected its arguments, so it has no result:`,
    problem.parameter === undefined ? `- ${message}` : `- ${shorten(problem.parameter, NAME_CHARS)}: ${message}`,
    parametersLine(schema),
    `Fix this and call ${tool} again.`,
  ].join("\n");
}

/** A tool's message on the problem's one line: line breaks become spaces, at most `ERROR_CHARS`. */
function oneLineMessage(text: string): string {
  return shorten(text.replace(/\s*[\r\n]+\s*/g, " ").trim(), ERROR_CHARS);
}

export function tooDeepMessage(tool: string, thrown: unknown, schema: ParametersSchema): string {
  return [
    `The arguments for ${tool} are nested too deeply to check (${describeThrown(thrown)}), so it was not run.`,
    parametersLine(schema),
    `Send the arguments again with far less nesting.`,
  ].join("\n");
}

/** `a, b, c` or, past `NOTE_ITEMS`, the first of them and `and 5 more`. */
function someItems<T>(items: readonly T[], show: (item: T) => string): string {
  const shown = items.slice(0, NOTE_ITEMS).map(show).join(", ");
  return items.length > NOTE_ITEMS ? `${shown} and ${items.length - NOTE_ITEMS} more` : shown;
}

export function ignoredArgumentsNote(paths: readonly string[]): string {
  return `[ignored unknown arguments: ${someItems(paths, (path) => shorten(path, NAME_CHARS))}]`;
}

export function convertedArgumentsNote(conversions: readonly Conversion[]): string {
  return `[converted arguments: ${someItems(conversions, (c) => `${shorten(c.path, NAME_CHARS)} from ${c.from} to ${c.to}`)}]`;
}

export const DECODED_STRING_NOTE = "[decoded arguments that were sent as a JSON string; send a JSON object]";

export const NO_OUTPUT = "(no output)";

/** Whether trying again can help is not known: the tool did not say its argument was wrong (`ToolInputError`). */
export function toolFailedMessage(tool: string, thrown: unknown): string {
  return `The tool ${tool} itself failed: ${describeThrown(thrown)}`;
}

export function timeoutMessage(tool: string, timeoutMs: number): string {
  return `The tool ${tool} timed out: it did not finish within ${durationText(timeoutMs)}, so it was stopped and has no result. Try a smaller task or another approach.`;
}

/** Validation that passed the call's time limit, in its worker (stoppable-validation.ts). */
export function validationTimeoutMessage(tool: string, timeoutMs: number): string {
  return `The arguments for ${tool} could not be checked within the call's time limit of ${durationText(timeoutMs)} (its parameters schema makes checking them slow), so checking was stopped and it was not run. Send smaller or less nested arguments.`;
}

export function validationCrashedMessage(tool: string, thrown: unknown): string {
  return `The arguments for ${tool} could not be checked: the thread checking them failed (${describeThrown(thrown)}), so it was not run. Send smaller or less nested arguments.`;
}

function durationText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

export function abortedMessage(tool: string): string {
  return `The tool ${tool} was interrupted before it finished; it has no result.`;
}

export function loadFailedMessage(tool: string, file: string, problem: string): string {
  return `The tool ${tool} could not be loaded from ${file}: ${shorten(problem, ERROR_CHARS)}. This is a setup problem, not an argument problem; run ${commandLine("gen")} if the tools changed.`;
}

export function schemaFailedMessage(tool: string, thrown: unknown): string {
  return `The parameters schema of ${tool} could not be compiled (${describeThrown(thrown)}); the tool cannot be called until ${commandLine("gen")} writes a valid one.`;
}

export function unrenderableResultMessage(tool: string, thrown: unknown): string {
  return `The tool ${tool} ran, but its return value cannot be turned into text: ${describeThrown(thrown)}`;
}

export function mediaTooLargeMessage(tool: string, kind: string, bytes: number, limit: number): string {
  return `The tool ${tool} returned an ${kind} of ${bytes} bytes, over the limit of ${limit} bytes per image or audio item, so nothing was sent. This is not a problem with your arguments; ask for a smaller ${kind} if the tool can make one.`;
}

export function internalErrorMessage(tool: string, thrown: unknown): string {
  return `The call to ${tool} hit an internal error of the runtime, not of the tool or its arguments: ${describeThrown(thrown)}`;
}

/** `TypeError: boom` for an Error; for anything else thrown, what it was. Never rethrows. */
function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error || (typeof thrown === "object" && thrown !== null && "message" in thrown)) {
      const { name, message } = thrown as { name?: unknown; message?: unknown };
      return shorten(`${typeof name === "string" && name !== "" ? name : "Error"}: ${String(message)}`, ERROR_CHARS);
    }
    return `a thrown ${previewValue(thrown)} (not an Error)`;
  } catch {
    return "an error that could not be described";
  }
}
