/**
 * What the per-turn baselines offer the model: the system prompt and the tool definitions the sigloop
 * agent sends (read from the JSON file the bench writes, `{ instructions, tools }`, the tools as Chat
 * Completions definitions), so that both sides' requests carry the same bytes and the rows measure the
 * loops, not the payload. Each tool's arguments are checked with Ajv (compiled on the tool's first call,
 * as sigloop's executor does); `get_time` answers as tools/get_time.ts does, any other tool refuses.
 */
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import { getTimeText } from "./get-time.mjs";

/** @returns {{ instructions: string, tools: Array<{ name: string, description: string, parameters: object }> }} */
export function readOffer(file) {
  const offer = JSON.parse(readFileSync(file, "utf8"));
  return { instructions: offer.instructions, tools: offer.tools.map((tool) => tool.function) };
}

const ajv = new Ajv({ allErrors: true });
const validators = new Map();

/** Throws, with Ajv's message, when `args` (already parsed) do not match the tool's parameters. */
export function checkArguments(tool, args) {
  let validate = validators.get(tool.name);
  if (validate === undefined) validators.set(tool.name, (validate = ajv.compile(tool.parameters)));
  if (!validate(args)) throw new Error(`invalid arguments: ${ajv.errorsText(validate.errors)}`);
}

/** The result text of a call with valid arguments. */
export function runTool(tool) {
  if (tool.name !== "get_time") throw new Error(`${tool.name} is not run by this baseline`);
  return getTimeText();
}
