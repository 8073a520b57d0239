/**
 * The one progress line saying which tool definitions the CLI offers: strict (OpenAI's constrained
 * decoding, `strictTools`) or lenient (`tools`), why, and in strict mode the tools that have no strict
 * form and go out lenient anyway.
 */
import type { SchemasFile } from "../shared/schemas-file.js";

export function toolModeLine(strict: boolean, byFlag: boolean, schemas: SchemasFile): string {
  const why = byFlag
    ? strict ? "--strict" : "--no-strict"
    : strict ? "the endpoint is OpenAI's; --no-strict turns it off" : "the endpoint is not OpenAI's; --strict turns it on";
  if (!strict) return `tools: lenient (${why})`;
  const lenient = (schemas.strictTools ?? []).filter((tool) => tool.function.strict !== true).map((tool) => tool.function.name);
  return `tools: strict (${why})${lenient.length > 0 ? `; sent lenient, having no strict form: ${lenient.join(", ")}` : ""}`;
}
