/**
 * The test-side check of OpenAI's strict dialect: a strict `parameters` schema must keep every rule
 * (the scripted server's checker, src/scripted-server/strict-dialect.ts, which answers like the real API)
 * and compile in Ajv's strict mode without a word logged.
 */
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { strictDialectViolations } from "../../src/scripted-server/strict-dialect.js";

/** Every rule `parameters` breaks, and everything strict Ajv says about it (empty: fine). */
export function strictSchemaProblems(parameters: unknown): string[] {
  const problems = strictDialectViolations(parameters);
  const logged: string[] = [];
  const record = (...args: unknown[]) => logged.push(args.map(String).join(" "));
  try {
    addFormats(new Ajv({ logger: { log: record, warn: record, error: record } })).compile(parameters as object);
  } catch (error) {
    logged.push(`Ajv: ${(error as Error).message}`);
  }
  return [...problems, ...logged.map((line) => `Ajv strict mode: ${line}`)];
}
