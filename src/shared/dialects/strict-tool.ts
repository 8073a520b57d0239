/**
 * The `strictTools` entry of one tool: its definition in OpenAI's strict dialect (`strict: true`), or,
 * when its parameters have no strict form, its lenient definition with `strict: false` and the one
 * warning gen prints about it (which parameter, and why). Never an error: the tool still works, the
 * model's arguments are just not constrained while they are decoded.
 */
import type { ToolDefinition } from "../schemas-file.js";
import { toStrictParameters, type StrictProblem } from "./strict-parameters.js";

export interface StrictTool {
  definition: ToolDefinition;
  /** Set when the tool stays lenient: the first reason, and the warning text naming it. */
  lenient?: { problem: StrictProblem; message: string };
}

export function strictToolDefinition(tool: ToolDefinition): StrictTool {
  const { name, description, parameters } = tool.function;
  const result = toStrictParameters(parameters);
  if (result.ok) return { definition: { type: "function", function: { name, description, parameters: result.parameters, strict: true } } };
  const problem = result.problems[0]!;
  const more = result.problems.length - 1;
  const what = problem.parameter === undefined ? "its parameters" : problemSubject(problem);
  const message = `tool "${name}" is offered with strict: false in strict mode: ${what} ${problem.reason}${more > 0 ? ` (and ${more} more)` : ""}; the model's arguments are still validated`;
  return { definition: { type: "function", function: { name, description, parameters, strict: false } }, lenient: { problem, message } };
}

function problemSubject(problem: StrictProblem): string {
  const at = problem.member !== undefined && problem.member !== problem.parameter ? ` at ${problem.member}` : "";
  return `parameter "${problem.parameter}"${at}`;
}
