import { ts } from "./program/compiler.js";
import type { CallingConvention, JsonSchema, JsonValue, ParametersSchema, ToolAnnotations, ToolDefinition } from "../shared/schemas-file.js";
import { diagnosticAt, hasErrors, type Diagnostic } from "./diagnostic.js";
import { docHost, type DiscoveredTool } from "./reflect/discover-tools.js";
import type { LibraryDocs } from "./program/library-docs.js";
import { inspectJsonType, visibleMembers } from "./reflect/json-compat.js";
import { applyKeyword, isTypedKeyword, keywordFromTag, VALIDATION_TAGS } from "./schema/keywords.js";
import { literalDefault } from "./reflect/literal-default.js";
import { patternDefaults } from "./reflect/pattern-defaults.js";
import { outputSchemaOf } from "./schema/output-schema.js";
import { SchemaTooLargeError, type SchemaEngine, type TypeSchemas } from "./schema/schema-engine.js";
import { DefaultCheck, finishedSharedSchema, finishParameters, placeParameterKeywords, type BrokenDefault, type ParameterKeyword } from "./schema/finish-parameters.js";
import { orderSchemaKeys, settle } from "../shared/schema-walk.js";
import { readToolAnnotations } from "./reflect/tool-annotations.js";
import { readInlineParamDoc, readToolDocs, toolDescription, type ParamDoc, type ToolDocs } from "./reflect/tool-docs.js";
import { strictToolDefinition } from "../shared/dialects/strict-tool.js";
import { inWrittenOrder } from "./schema/written-order.js";
import { applyMemberDocs, memberDocsOf, pathSteps, type MemberDefault, type MemberDoc } from "./schema/member-docs.js";

export interface BuiltTool {
  definition: ToolDefinition;
  /** Its `strictTools` entry. */
  strictDefinition: ToolDefinition;
  call: CallingConvention;
  /** The schema of the returned object, when the return type is a JSON object type (MCP's outputSchema). */
  output?: JsonSchema;
  annotations?: ToolAnnotations;
}

/** One property of the arguments object, before its schema is made. */
interface ArgumentSpec {
  name: string;
  type: ts.Type;
  /** Where problems with it are reported. */
  node: ts.Node;
  required: boolean;
  defaultValue: JsonValue | undefined;
  /** The initializer `defaultValue` was read from. */
  defaultNode?: ts.Node;
  doc: ParamDoc;
}

/** One default check per run (a SchemaEngine serves one run), so Ajv is set up once. */
const defaultChecks = new WeakMap<SchemaEngine, DefaultCheck>();

function defaultCheckFor(engine: SchemaEngine): DefaultCheck {
  let check = defaultChecks.get(engine);
  if (check === undefined) {
    check = new DefaultCheck();
    defaultChecks.set(engine, check);
  }
  return check;
}

/** Turns one discovered tool into its OpenAI definition and calling convention, or diagnostics saying why not. */
export function buildTool(tool: DiscoveredTool, engine: SchemaEngine, checker: ts.TypeChecker): { built?: BuiltTool; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const host = docHost(tool);
  const docs = readToolDocs(host);
  const tagged = readToolAnnotations(host, tool.name);
  for (const problem of tagged.problems) diagnostics.push(diagnosticAt(tool.declaration, "error", problem));
  if (docs.description === "") {
    diagnostics.push(diagnosticAt(tool.declaration, "warning", `tool "${tool.name}" has no description; add a JSDoc summary above it (models call tools far better with one)`));
  }
  // A `this` parameter types the receiver; it is not an argument.
  const parameters = tool.fn.parameters.filter((parameter) => !(ts.isIdentifier(parameter.name) && parameter.name.text === "this"));
  const only = parameters.length === 1 ? parameters[0] : undefined;
  const byObject = only !== undefined && ts.isObjectBindingPattern(only.name);
  // Like a compiler, report every parameter's problem at once: the well-formed ones are still checked.
  const specs = byObject ? destructuredSpecs(only!, docs, checker, engine.docs) : positionalSpecs(tool, parameters, docs, diagnostics, checker);
  for (const spec of specs) diagnostics.push(...typeFindings(tool, spec, checker), ...prototypeNameFindings(tool, spec, checker));
  if (hasErrors(diagnostics)) return { diagnostics };
  // @params below the properties (`o.name`, `o.inner.x`); the ones naming nothing are said here.
  const named = memberDocsOf(docs.params, specs.map((spec) => spec.name), byObject, tool.declaration, tool.name);
  diagnostics.push(...named.diagnostics);

  let made: TypeSchemas;
  try {
    made = engine.schemasFor(new Map(specs.map((spec) => [spec.name, spec.type])));
  } catch (error) {
    if (error instanceof SchemaTooLargeError) return { diagnostics: [...diagnostics, tooLargeDiagnostic(tool, specs, engine, error.message)] };
    const reason = error instanceof Error ? error.message : String(error);
    diagnostics.push(diagnosticAt(tool.declaration, "error", `typescript-json-schema could not describe the parameters of tool "${tool.name}": ${reason}`));
    return { diagnostics };
  }
  const definitions = made.definitions as Record<string, JsonSchema>;
  const typeSchema = (spec: ArgumentSpec) => made.schemas.get(spec.name) as JsonSchema;
  // Tools share parameter types: when each type stands alone, its finished schema is made once, and a
  // parameter adds its own description and tags to it.
  const shared = Object.keys(definitions).length === 0 && specs.every((spec) => !examplesClash(spec, typeSchema(spec)))
    ? specs.map((spec) => finishedSharedSchema(typeSchema(spec)))
    : [];
  const prefinished = shared.length === specs.length && shared.every((schema) => schema !== undefined);

  const properties: { [name: string]: JsonSchema } = {};
  const required: string[] = [];
  const parameterKeywords = new Map<string, ParameterKeyword[]>();
  specs.forEach((spec, index) => {
    const schema: JsonSchema = prefinished ? { ...shared[index] } : structuredClone(typeSchema(spec));
    if (spec.doc.description !== undefined) schema.description = spec.doc.description;
    for (const tag of spec.doc.tags) {
      const result = keywordFromTag(tag.name, tag.text);
      if ("error" in result) diagnostics.push(diagnosticAt(spec.node, "error", `parameter "${spec.name}" of tool "${tool.name}": ${result.error}`));
      else if (isTypedKeyword(result.keyword)) parameterKeywords.set(spec.name, [...(parameterKeywords.get(spec.name) ?? []), result]);
      else applyKeyword(schema, result.keyword, result.value);
    }
    if (spec.defaultValue !== undefined) schema.default = spec.defaultValue;
    if (schema.description === undefined) {
      diagnostics.push(diagnosticAt(spec.node, "warning", `parameter "${spec.name}" of tool "${tool.name}" has no description; add "@param ${spec.name} …" to the tool's JSDoc`));
    }
    properties[spec.name] = prefinished ? sharedParameterSchema(shared[index]!, schema) : schema;
    if (spec.required) required.push(spec.name);
  });

  const root: ParametersSchema = { type: "object", properties, required, additionalProperties: false };
  const finished = prefinished
    ? { problems: [], tagProblems: placeParameterKeywords(properties, parameterKeywords, tool.name), parameters: orderSchemaKeys(root) as ParametersSchema }
    : finishParameters(root, definitions, tool.name, parameterKeywords);
  for (const problem of finished.problems) diagnostics.push(diagnosticAt(tool.declaration, "error", `tool "${tool.name}": ${problem}`));
  // After finishing, as the parameters' own typed tags: a member's keywords go where its finished types are.
  if (named.memberDocs.length > 0) diagnostics.push(...applyMemberDocs(finished.parameters.properties as { [name: string]: JsonSchema }, named.memberDocs, tool.declaration, tool.name));
  const size = JSON.stringify(finished.parameters).length;
  if (size > MAX_PARAMETERS_CHARS) {
    const largest = specs.reduce((big, spec) => (JSON.stringify(properties[spec.name]).length > JSON.stringify(properties[big.name]).length ? spec : big));
    diagnostics.push(diagnosticAt(largest.node, "error", `parameter "${largest.name}" of tool "${tool.name}" makes the tool's schema ${size} characters of JSON, over the limit of ${MAX_PARAMETERS_CHARS}; give it a smaller type`));
  }
  const nodeOf = new Map(specs.map((spec) => [spec.name, spec.node]));
  for (const problem of finished.tagProblems) {
    const node = problem.parameter === undefined ? undefined : nodeOf.get(problem.parameter);
    diagnostics.push(diagnosticAt(node ?? tool.declaration, problem.severity, problem.message));
  }
  if (hasErrors(diagnostics)) return { diagnostics };
  for (const broken of defaultCheckFor(engine).brokenDefaults(finished.parameters, typeCheckedDefaults(specs, named.memberDocs))) {
    diagnostics.push(brokenDefaultDiagnostic(broken, specs, docs, named.memberDocs, byObject, tool));
  }

  const call: CallingConvention = byObject ? { kind: "object" } : { kind: "positional", params: specs.map((spec) => spec.name) };
  const output = outputSchemaOf(tool, engine, checker);
  diagnostics.push(...output.diagnostics);
  const ordered = inWrittenOrder(finished.parameters, specs.map((spec) => ({ property: spec.name, type: spec.type, node: spec.node })), checker) as ParametersSchema;
  const definition: ToolDefinition = { type: "function", function: { name: tool.name, description: toolDescription(docs), parameters: ordered } };
  const strict = strictToolDefinition(definition);
  if (strict.lenient !== undefined) {
    const node = strict.lenient.problem.parameter === undefined ? undefined : nodeOf.get(strict.lenient.problem.parameter);
    diagnostics.push(diagnosticAt(node ?? tool.declaration, "warning", strict.lenient.message));
  }
  return {
    built: { definition, strictDefinition: strict.definition, call, ...(output.schema ? { output: output.schema } : {}), ...(tagged.annotations ? { annotations: tagged.annotations } : {}) },
    diagnostics,
  };
}

function positionalSpecs(tool: DiscoveredTool, parameters: readonly ts.ParameterDeclaration[], docs: ToolDocs, diagnostics: Diagnostic[], checker: ts.TypeChecker): ArgumentSpec[] {
  const specs: ArgumentSpec[] = [];
  parameters.forEach((parameter, index) => {
    const nameNode = parameter.name;
    if (!ts.isIdentifier(nameNode)) {
      diagnostics.push(diagnosticAt(parameter, "error",
        `parameter ${index + 1} of tool "${tool.name}" is a destructuring pattern beside other parameters, so it has no name to become a property; name it, or make it the tool's only parameter`));
      return;
    }
    const name = nameNode.text;
    if (parameter.dotDotDotToken !== undefined) {
      const typeText = parameter.type?.getText() ?? "unknown[]";
      diagnostics.push(diagnosticAt(parameter, "error",
        `parameter "${name}" of tool "${tool.name}" is a rest parameter, which a call by named arguments cannot fill; take an array instead: ${name}: ${typeText}`));
      return;
    }
    const inline = readInlineParamDoc(parameter);
    const fromParamTag = docs.params.get(name);
    specs.push({
      name,
      type: checker.getTypeAtLocation(parameter),
      node: parameter,
      // Optional: `?`, a default, or a rest parameter (reported above).
      required: parameter.questionToken === undefined && parameter.initializer === undefined,
      defaultValue: literalDefault(parameter.initializer),
      ...(parameter.initializer === undefined ? {} : { defaultNode: parameter.initializer }),
      doc: { description: fromParamTag?.description ?? inline.description, tags: [...inline.tags, ...(fromParamTag?.tags ?? [])] },
    });
  });
  return specs;
}

/**
 * `({ query, limit = 10 }: { query: string; limit?: number })`: the members of the parameter's object
 * type are the properties. A member's doc comment describes it; `@param opts.member` (any prefix) or
 * `@param member` in the tool's JSDoc does too, and wins.
 */
function destructuredSpecs(parameter: ts.ParameterDeclaration, docs: ToolDocs, checker: ts.TypeChecker, libraryDocs: LibraryDocs): ArgumentSpec[] {
  const pattern = parameter.name;
  // By property name: `"a-b": x = 1` and `1.50: y = 2` default the members "a-b" and "1.5".
  const defaults = new Map<string, ts.Expression>();
  if (ts.isObjectBindingPattern(pattern)) {
    for (const entry of patternDefaults(pattern)) if (entry.path.length === 0) defaults.set(entry.property, entry.initializer);
  }
  const type = checker.getTypeAtLocation(parameter);
  return visibleMembers(checker.getPropertiesOfType(type)).map((member) => {
    const name = member.getName();
    const declaration = member.valueDeclaration ?? member.declarations?.[0];
    const doc = memberParamDoc(docs, name);
    const initializer = defaults.get(name);
    libraryDocs.read(member);
    return {
      name,
      type: checker.getTypeOfSymbol(member),
      node: declaration !== undefined && !isLibraryNode(declaration) ? declaration : parameter,
      required: !(member.flags & ts.SymbolFlags.Optional) && !defaults.has(name),
      defaultValue: literalDefault(initializer),
      ...(initializer === undefined ? {} : { defaultNode: initializer }),
      doc: { description: doc?.description ?? memberDescription(member, checker), tags: [...memberTags(member), ...(doc?.tags ?? [])] },
    };
  });
}

/** The `@param` naming a member below a property (`opts.size`, as a message names it: no `[]` steps), if one does. */
function memberParam(docs: ToolDocs, byObject: boolean, member: string): ParamDoc | undefined {
  for (const [written, doc] of docs.params) {
    const steps = pathSteps(written).filter((step) => step !== "[]");
    // In a tool taking one destructured object, the first name may be the object's.
    if (steps.join(".") === member || (byObject && steps.slice(1).join(".") === member)) return doc;
  }
  return undefined;
}

function memberParamDoc(docs: ToolDocs, member: string): ParamDoc | undefined {
  for (const [name, doc] of docs.params) {
    if (name === member || (name.endsWith(`.${member}`) && name.split(".").length === 2)) return doc;
  }
  return undefined;
}

function memberDescription(member: ts.Symbol, checker: ts.TypeChecker): string | undefined {
  const text = ts.displayPartsToString(member.getDocumentationComment(checker)).trim();
  return text === "" ? undefined : text;
}

function memberTags(member: ts.Symbol): { name: string; text: string }[] {
  return member.getJsDocTags().map((tag) => ({ name: tag.name, text: ts.displayPartsToString(tag.text) })).filter((tag) => VALIDATION_TAGS.has(tag.name));
}

/** Parameter schemas made from a finished type schema, by what the parameter added to it; settled once seen twice. */
const parameterSchemas = new WeakMap<JsonSchema, Map<string, { schema: JsonSchema; shared: boolean }>>();

/**
 * `schema`, a finished type schema with what a parameter adds to it (a description, a default,
 * examples, `deprecated`); from the second parameter written alike on, one settled schema for all of
 * them: a `path: string` with the same description in several tools is made strict and measured once.
 * The first one is kept as it is (nothing changes it), since most parameters are written once.
 */
function sharedParameterSchema(finished: JsonSchema, schema: JsonSchema): JsonSchema {
  let alike = parameterSchemas.get(finished);
  if (alike === undefined) {
    alike = new Map();
    parameterSchemas.set(finished, alike);
  }
  const key = JSON.stringify({ description: schema.description, default: schema.default, examples: schema.examples, deprecated: schema.deprecated });
  const seen = alike.get(key);
  if (seen === undefined) {
    alike.set(key, { schema, shared: false });
    return schema;
  }
  if (!seen.shared) {
    seen.schema = settle(orderSchemaKeys(seen.schema));
    seen.shared = true;
  }
  return seen.schema;
}

/**
 * A type's own `@example` is added to the examples after a parameter's when the two are finished
 * together; finishing the type first would turn the order around.
 */
function examplesClash(spec: ArgumentSpec, typeSchema: JsonSchema): boolean {
  return "example" in typeSchema && spec.doc.tags.some((tag) => tag.name === "example");
}

function typeFindings(tool: DiscoveredTool, spec: ArgumentSpec, checker: ts.TypeChecker): Diagnostic[] {
  // An argument arrives as a plain object, so a class's JSON form (`classJson`) does not matter here.
  return inspectJsonType(spec.type, checker, spec.name).filter((finding) => finding.kind !== "classJson").map((finding) => {
    const where = finding.path === spec.name ? "" : ` at ${finding.path}`;
    const node = finding.declaration !== undefined && !isLibraryNode(finding.declaration) ? finding.declaration : spec.node;
    return finding.kind === "unsupported"
      ? diagnosticAt(node, "error", `parameter "${spec.name}" of tool "${tool.name}" has type "${finding.typeText}"${where}, which JSON cannot carry`)
      : diagnosticAt(node, "warning", `parameter "${spec.name}" of tool "${tool.name}" has type "${finding.typeText}"${where}, so any JSON value is accepted; a precise type lets the model and the validator do better`);
  });
}

/**
 * A parameter or member named `__proto__` cannot round-trip: JSON Schema tooling drops it from
 * `properties` (keeping it in `required`), and in JavaScript it names the prototype, not a member.
 */
function prototypeNameFindings(tool: DiscoveredTool, spec: ArgumentSpec, checker: ts.TypeChecker): Diagnostic[] {
  const problem = (path: string, node: ts.Node) => {
    const what = path === spec.name ? "is named __proto__" : `has a member named __proto__ (${path})`;
    return diagnosticAt(node, "error", `parameter "${spec.name}" of tool "${tool.name}" ${what}, which JSON Schema and JavaScript objects cannot carry as a member; rename it`);
  };
  if (spec.name === "__proto__") return [problem(spec.name, spec.node)];
  const seen = new Set<ts.Type>();
  const found: Diagnostic[] = [];
  const visit = (type: ts.Type, path: string, depth: number): void => {
    if (seen.has(type) || depth > 50 || found.length > 0) return;
    seen.add(type);
    if (type.isUnionOrIntersection()) return type.types.forEach((member) => visit(member, path, depth + 1));
    if (checker.isArrayType(type) || checker.isTupleType(type)) return checker.getTypeArguments(type as ts.TypeReference).forEach((item) => visit(item, `${path}[]`, depth + 1));
    if (!(type.flags & ts.TypeFlags.Object)) return;
    for (const property of visibleMembers(checker.getPropertiesOfType(type))) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (property.name === "__proto__") found.push(problem(`${path}.__proto__`, declaration !== undefined && !isLibraryNode(declaration) ? declaration : spec.node));
      else if (declaration !== undefined && !isLibraryNode(declaration)) visit(checker.getTypeOfSymbolAtLocation(property, declaration), `${path}.${property.name}`, depth + 1);
    }
  };
  visit(spec.type, spec.name, 0);
  return found;
}

/**
 * The members whose `default` is a literal initializer the compiler checked against their type: one
 * with a type assertion anywhere in it (`{} as Opts`) was not checked, nor is any `@default` tag.
 */
function typeCheckedDefaults(specs: readonly ArgumentSpec[], memberDocs: readonly MemberDoc[]): Set<string> {
  const checked = new Set<string>();
  for (const spec of specs) if (spec.defaultValue !== undefined && spec.defaultNode !== undefined && !hasTypeAssertion(spec.defaultNode)) checked.add(spec.name);
  for (const entry of memberDocs) {
    if (entry.kind === "default" && entry.value !== undefined && !hasTypeAssertion(entry.initializer)) checked.add([entry.property, ...entry.path].join("."));
  }
  return checked;
}

function hasTypeAssertion(node: ts.Node): boolean {
  return ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node) || ts.forEachChild(node, hasTypeAssertion) === true;
}

/**
 * The warning for a default its own schema refuses, at what gave it: the initializer (a member's: the
 * one its destructuring pattern writes), else the `@default` tag (of the parameter, or of the `@param`
 * naming the member), else the parameter.
 */
function brokenDefaultDiagnostic(broken: BrokenDefault, specs: readonly ArgumentSpec[], docs: ToolDocs, memberDocs: readonly MemberDoc[], byObject: boolean, tool: DiscoveredTool): Diagnostic {
  const spec = specs.find((entry) => entry.name === (broken.parameter ? broken.path : broken.path.split(".")[0]));
  // The last `@default` is the one written (each replaces the one before).
  const defaultTag = (tags: ParamDoc["tags"] | undefined) => tags?.filter((tag) => tag.name === "default").at(-1)?.node;
  const node = broken.parameter
    ? spec?.defaultNode ?? defaultTag(spec?.doc.tags)
    : patternInitializer(memberDocs, broken.path) ?? defaultTag(memberParam(docs, byObject, broken.path)?.tags);
  const shown = JSON.stringify(broken.value);
  const value = shown.length > 80 ? `${shown.slice(0, 79)}…` : shown;
  const subject = `${broken.parameter ? "parameter" : "member"} "${broken.path}" of tool "${tool.name}"`;
  return diagnosticAt(node ?? spec?.node ?? tool.declaration, "warning", `the default ${value} of ${subject} does not satisfy its own schema: ${broken.reason}`);
}

/** The literal initializer a destructuring pattern writes for the member `opts.size`, if it writes one (a computed one gives no `default`). */
function patternInitializer(memberDocs: readonly MemberDoc[], member: string): ts.Node | undefined {
  const written = memberDocs.find((entry): entry is MemberDefault => entry.kind === "default" && entry.value !== undefined && [entry.property, ...entry.path].join(".") === member);
  return written?.initializer;
}

/**
 * The largest `parameters` gen writes for one tool (1 MiB of JSON): every request carries every tool's
 * schema, and the agent and the MCP server read the whole file at start-up.
 */
export const MAX_PARAMETERS_CHARS = 1_048_576;

/** The error for a tool whose types expand without bound, at the first parameter that does so alone. */
function tooLargeDiagnostic(tool: DiscoveredTool, specs: readonly ArgumentSpec[], engine: SchemaEngine, reason: string): Diagnostic {
  const culprit = specs.find((spec) => {
    try {
      engine.schemasFor(new Map([[spec.name, spec.type]]));
      return false;
    } catch (error) {
      return error instanceof SchemaTooLargeError;
    }
  });
  const what = culprit === undefined ? `the parameters of tool "${tool.name}"` : `parameter "${culprit.name}" of tool "${tool.name}"`;
  return diagnosticAt(culprit?.node ?? tool.declaration, "error", `${what} cannot be described: ${reason}; give it a type of bounded size`);
}

function isLibraryNode(node: ts.Node): boolean {
  const file = node.getSourceFile();
  return file.hasNoDefaultLib || file.fileName.includes("/node_modules/");
}
