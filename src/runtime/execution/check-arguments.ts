/**
 * The checks every tool call passes before anything runs, whoever runs it (a local function or an MCP
 * server): parse the model's arguments, read `null` for an optional member as absent, validate with
 * lossless repairs. Either the arguments to send and the notes to put before the result, or the outcome
 * the model reads instead. One path, so a tool from anywhere gets the same messages.
 */
import type { ValidateFunction } from "ajv";
import type { ParametersSchema } from "../../shared/schemas-file.js";
import type { ToolOutcome } from "../loop/types.js";
import { dropOptionalNulls } from "./null-as-absent.js";
import { parseToolArguments } from "./parse-tool-arguments.js";
import {
  abortedMessage,
  convertedArgumentsNote,
  DECODED_STRING_NOTE,
  ignoredArgumentsNote,
  invalidArgumentsMessage,
  invalidJsonMessage,
  notAnObjectMessage,
  oversizedArgumentsMessage,
  tooDeepMessage,
  validationCrashedMessage,
  validationTimeoutMessage,
} from "./tool-messages.js";
import type { StoppableLimits } from "./stoppable-validation.js";
import { validateArguments, type SchemaDialect, type ValidationResult } from "./validate-arguments.js";

/**
 * The longest arguments text a call may send (16 MiB of characters; MCP lines stop at 8 MiB before it).
 * Patterns and `uniqueItems` take time linear in it (linear-validation.ts); what the rest of a schema
 * multiplies it by is bounded below (`IN_PROCESS_VALIDATION_BUDGET`).
 */
export const MAX_ARGUMENT_CHARS = 16_777_216;

/**
 * The most work validation may do on the main thread: a schema's cost per character
 * (`validation-cost.ts`) times the arguments' length. The schemas of this repository's tools and test
 * fixtures have costs of 1 to 10 (all of gen's fixtures at most 32, which a test checks), so their calls
 * stay in process up to 3 MiB of arguments (1 MiB at 32), at today's speed; past it, or for a schema
 * without a bound, validation runs where it can be stopped (`stoppable-validation.ts`). The slowest kind of validation per unit (every item of a long array failing
 * a union: Ajv builds an error per branch) does about 3 million units a second on a quiet 2-core machine
 * (100,000 such items, 4.8 million units, in 1.5 s), so the main thread is held about 10 s at the worst.
 */
export const IN_PROCESS_VALIDATION_BUDGET = 33_554_432;

/**
 * How long validation in a worker may take: the call's time limit, but never less than a second plus 4 s
 * per MiB of arguments, the time Ajv takes for a large argument of an ordinary schema on a slow machine:
 * a tool's own short limit (`--tool-timeout 500`) is about the tool, not about checking a large argument
 * that gen's schema makes linear. The main thread is free either way.
 */
export function validationLimitMs(timeoutMs: number, chars: number): number {
  return Math.max(timeoutMs, Math.ceil(1_000 + (4_000 * chars) / 1_048_576));
}

/**
 * A tool's validator, compiled on first use, with its schema's cost bound (`validation-cost.ts`); a
 * schema that does not compile is kept as its error.
 */
export type CompiledValidator = { ok: true; validate: ValidateFunction; cost: number } | { ok: false; error: unknown };

/** Where validation past the in-process budget runs, and how long it may take. */
export interface StoppableCheck extends StoppableLimits {
  dialect: SchemaDialect;
}

export type CheckedArguments =
  | { ok: true; args: Record<string, unknown>; notes: string[] }
  | { ok: false; outcome: ToolOutcome };

export interface ArgumentCheck {
  /** The tool's name as the model knows it. */
  name: string;
  /** The model's `arguments`, as it came. */
  text: string;
  /** The schema the arguments are described and checked against. */
  schema: ParametersSchema;
  /** Asked only once the arguments parse, so a bad call never waits for a compile. */
  validator: () => Promise<CompiledValidator>;
  /** The outcome for a schema that does not compile: whose bug it is differs by where the tool lives. */
  schemaFailed: (error: unknown) => ToolOutcome;
  /** Without it, every validation runs in process. */
  stoppable?: StoppableCheck;
}

export async function checkArguments(check: ArgumentCheck): Promise<CheckedArguments> {
  const { name, text, schema } = check;
  if (text.length > MAX_ARGUMENT_CHARS) {
    return { ok: false, outcome: { status: "invalid_arguments", content: oversizedArgumentsMessage(name, text.length, MAX_ARGUMENT_CHARS, schema) } };
  }
  const parsed = parseToolArguments(text);
  if (!parsed.ok) {
    const content =
      parsed.problem === "invalid_json" ? invalidJsonMessage(name, parsed.parserMessage, text, schema) : notAnObjectMessage(name, parsed.value, schema);
    return { ok: false, outcome: { status: "invalid_arguments", content } };
  }
  const validator = await check.validator();
  if (!validator.ok) return { ok: false, outcome: check.schemaFailed(validator.error) };
  dropOptionalNulls(parsed.args, schema);
  const validated = await validate(check, validator, parsed.args);
  if (!validated.ok) return validated;
  const { checked, args } = validated;
  if (!checked.ok) return { ok: false, outcome: { status: "invalid_arguments", content: invalidArgumentsMessage(name, checked.problems, schema) } };
  const notes = [
    ...(checked.ignored.length > 0 ? [ignoredArgumentsNote(checked.ignored)] : []),
    ...(checked.converted.length > 0 ? [convertedArgumentsNote(checked.converted)] : []),
    ...(parsed.decodedString ? [DECODED_STRING_NOTE] : []),
  ];
  return { ok: true, args, notes };
}

type Validated = { ok: true; checked: ValidationResult; args: Record<string, unknown> } | { ok: false; outcome: ToolOutcome };

/** In process when the schema's bound allows it for arguments this long, else where it can be stopped. */
async function validate(check: ArgumentCheck, validator: Extract<CompiledValidator, { ok: true }>, args: Record<string, unknown>): Promise<Validated> {
  const { name, schema, stoppable } = check;
  const tooDeep = (error: unknown): Validated => ({ ok: false, outcome: { status: "invalid_arguments", content: tooDeepMessage(name, error, schema) } });
  if (stoppable === undefined || validator.cost * check.text.length <= IN_PROCESS_VALIDATION_BUDGET) {
    try {
      return { ok: true, checked: validateArguments(validator.validate, args), args };
    } catch (error) {
      // A recursive schema is checked recursively: deep enough arguments overflow the stack.
      if (error instanceof RangeError) return tooDeep(error);
      throw error;
    }
  }
  const limitMs = validationLimitMs(stoppable.timeoutMs, check.text.length);
  // Loaded only when needed: most runs never validate past the budget.
  const { validateStoppably } = await import("./stoppable-validation.js");
  const outcome = await validateStoppably(schema, stoppable.dialect, args, { signal: stoppable.signal, timeoutMs: limitMs });
  switch (outcome.kind) {
    case "checked":
      return { ok: true, checked: outcome.result, args: outcome.args };
    case "too_deep":
      return tooDeep(outcome.error);
    case "schema_failed":
      return { ok: false, outcome: check.schemaFailed(outcome.error) };
    case "failed":
      throw Object.assign(new Error(outcome.error.message), { name: outcome.error.name });
    case "timeout":
      return { ok: false, outcome: { status: "timeout", content: validationTimeoutMessage(name, limitMs) } };
    case "aborted":
      return { ok: false, outcome: { status: "aborted", content: abortedMessage(name) } };
    case "crashed":
      return { ok: false, outcome: { status: "tool_error", content: validationCrashedMessage(name, outcome.error) } };
  }
}

/** The arguments as text, whatever a provider put there (the client should already have made it a string). */
export function argumentsText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}
