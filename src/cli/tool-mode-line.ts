/**
 * The one progress line saying which tool definitions the CLI offers: strict (OpenAI's constrained
 * decoding, `strictTools`) or lenient (`tools`), why, and in strict mode the tools that have no strict
 * form and go out lenient anyway; on Anthropic, one more line per strict tool outside its rules.
 */
import { anthropicStrictProblem } from "../runtime/model/anthropic/anthropic-strict.js";
import type { SchemasFile } from "../shared/schemas-file.js";

/** `defaultReason`: why strict is on or off when no flag said (the endpoint, or the provider). */
export function toolModeLine(strict: boolean, byFlag: boolean, schemas: SchemasFile, defaultReason?: string): string {
  const why = byFlag
    ? strict ? "--strict" : "--no-strict"
    : (defaultReason ?? (strict ? "the endpoint is OpenAI's; --no-strict turns it off" : "the endpoint is not OpenAI's; --strict turns it on"));
  if (!strict) return `tools: lenient (${why})`;
  const lenient = (schemas.strictTools ?? []).filter((tool) => tool.function.strict !== true).map((tool) => tool.function.name);
  return `tools: strict (${why})${lenient.length > 0 ? `; sent lenient, having no strict form: ${lenient.join(", ")}` : ""}`;
}

/** On Anthropic, one line per strict tool that its strict tool use cannot take (it is sent lenient). */
export function anthropicLenientLines(schemas: SchemasFile): string[] {
  return (schemas.strictTools ?? []).flatMap((tool) => {
    if (tool.function.strict !== true) return [];
    const problem = anthropicStrictProblem(tool.function.parameters);
    return problem === undefined ? [] : [`tools: ${tool.function.name} sent lenient to Anthropic: ${problem}, outside its strict tool use`];
  });
}
