/**
 * The `outputs` entry of a tool: when its declared return type, awaited, is a JSON object type (an
 * object literal type, an interface, a record, …), the schema of that object, made and finished exactly
 * as the parameters are (self-contained, strict-Ajv form, keys in a fixed order). Any other return type
 * (a string, an array, a union, `void`, `unknown`) has no output schema: MCP requires one to describe an
 * object, and the tool's result is then sent as text only. Nor has a class with private, protected or
 * `#private` members or accessors, whose instances' JSON is not what its type shows. Nor has sigloop's `ToolImage` or `ToolAudio`
 * (tool-media.ts), which is sent as MCP image or audio content.
 */
import { ts } from "../program/compiler.js";
import type { JsonSchema, ParametersSchema } from "../../shared/schemas-file.js";
import { diagnosticAt, type Diagnostic } from "../diagnostic.js";
import type { DiscoveredTool } from "../reflect/discover-tools.js";
import { finishedSharedSchema, finishParameters } from "./finish-parameters.js";
import { inspectJsonType } from "../reflect/json-compat.js";
import type { SchemaEngine } from "./schema-engine.js";
import { inWrittenOrder } from "./written-order.js";

export function outputSchemaOf(tool: DiscoveredTool, engine: SchemaEngine, checker: ts.TypeChecker): { schema?: JsonSchema; diagnostics: Diagnostic[] } {
  const signature = checker.getSignatureFromDeclaration(tool.fn);
  if (signature === undefined) return { diagnostics: [] };
  const declared = checker.getReturnTypeOfSignature(signature);
  const type = checker.getAwaitedType(declared) ?? declared;
  if (!isPlainObjectType(type, checker) || isToolMedia(type)) return { diagnostics: [] };
  const skipped = (why: string): { diagnostics: Diagnostic[] } => ({
    diagnostics: [diagnosticAt(tool.declaration, "warning", `tool "${tool.name}" gets no output schema: ${why}; MCP clients receive its result as text only`)],
  });
  const findings = inspectJsonType(type, checker, "result");
  const unsupported = findings.find((finding) => finding.kind === "unsupported");
  if (unsupported !== undefined) return skipped(`its return type has "${unsupported.typeText}" at ${unsupported.path}, which JSON cannot carry`);
  // A returned class is an instance, whose JSON holds its private fields and none of its getters.
  const classJson = findings.find((finding) => finding.kind === "classJson");
  if (classJson !== undefined) {
    const what = classJson.member === "accessor" ? "a getter or setter" : "private, protected or #private";
    return skipped(`its return type has class "${classJson.typeText}", whose ${classJson.path} is ${what}, and an instance's JSON holds every own field (private ones too) but no accessor or #private field; return an interface or object type instead`);
  }
  let made;
  try {
    made = engine.schemasFor(new Map([["result", type]]));
  } catch (error) {
    return skipped(`typescript-json-schema could not describe its return type (${error instanceof Error ? error.message : String(error)})`);
  }
  const root = made.schemas.get("result") as JsonSchema;
  const definitions = made.definitions as Record<string, JsonSchema>;
  let schema = Object.keys(definitions).length === 0 ? finishedSharedSchema(root) : undefined;
  if (schema === undefined) {
    // Finished in place, so that a problem names where it is.
    const finished = finishParameters(structuredClone(root) as ParametersSchema, definitions, tool.name);
    const problem = [...finished.problems, ...finished.tagProblems.map((entry) => entry.message)][0];
    if (problem !== undefined) return skipped(problem);
    schema = finished.parameters;
  }
  return schema.type === "object" ? { schema: inWrittenOrder(schema, [{ type }], checker), diagnostics: [] } : { diagnostics: [] };
}

/** The media items of sigloop's own tool-media module, by the file that declares them (the package's or its sources). */
function isToolMedia(type: ts.Type): boolean {
  const symbol = type.getSymbol();
  return symbol?.getName() === "MediaItem" && (symbol.getDeclarations() ?? []).some((declaration) => TOOL_MEDIA_FILE.test(declaration.getSourceFile().fileName));
}

const TOOL_MEDIA_FILE = /[\\/]runtime[\\/]execution[\\/]tool-media\.(d\.)?ts$/;

/** An object JSON carries as an object: not an array, tuple, function or `Date`, and not a union. */
function isPlainObjectType(type: ts.Type, checker: ts.TypeChecker): boolean {
  if (!(type.flags & ts.TypeFlags.Object) && !type.isIntersection()) return false;
  if (type.isIntersection() && type.types.some((member) => !(member.flags & ts.TypeFlags.Object))) return false;
  if (checker.isArrayType(type) || checker.isTupleType(type)) return false;
  if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) return false;
  return type.getSymbol()?.getName() !== "Date";
}
