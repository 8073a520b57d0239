import path from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { Project } from "ts-morph";
import { describe, expect, it } from "vitest";
import type { JsonSchema, JsonValue, SchemasFile } from "../../src/shared/schemas-file.js";
import { toolCompilerOptions } from "../../src/gen/program/tool-project.js";
import { dropOptionalNulls } from "../../src/runtime/execution/null-as-absent.js";
import { compileStrict, fixturesDir, generate, writeTree } from "./support.js";

/**
 * The differential test: TypeScript's own checker is the oracle. For many argument objects we ask the
 * checker whether `const v: Params = <value>` compiles, where `Params` is the tool's parameter object
 * type, and assert that Ajv on the emitted schema says the same.
 */

const SEED = 20_260_101;
const VALUES_PER_TOOL = 40;

interface Verdict {
  tool: string;
  value: JsonValue;
  typescript: boolean;
  ajv: boolean;
}

/** The TypeScript type of a tool's arguments object, spelled from its binding. */
function paramsType(file: SchemasFile, name: string, importName: string): string {
  const binding = file.bindings.find((entry) => entry.name === name)!;
  if (binding.call.kind === "object") return `Parameters<typeof ${importName}>[0]`;
  // `{}` would accept any non-null value: TypeScript's empty object type is not a closed object.
  if (binding.call.params.length === 0) return "Record<string, never>";
  const required = new Set(parametersRequired(file, name));
  const members = binding.call.params.map((param, index) => `${JSON.stringify(param)}${required.has(param) ? "" : "?"}: Parameters<typeof ${importName}>[${index}]`);
  return `{ ${members.join("; ")} }`;
}

function parametersRequired(file: SchemasFile, name: string): string[] {
  return file.tools.find((tool) => tool.function.name === name)!.function.parameters.required;
}

/**
 * Asks the checker about every value in one program: one declaration per line, so a diagnostic's line
 * says which value it rejects.
 */
function typescriptVerdicts(toolsDir: string, file: SchemasFile, names: string[], values: Map<string, JsonValue[]>): Map<string, boolean[]> {
  const project = new Project({ compilerOptions: toolCompilerOptions(false), skipAddingFilesFromTsConfig: true });
  const lines: string[] = [];
  const owners: { tool: string; index: number }[] = [];
  names.forEach((name, toolIndex) => {
    const binding = file.bindings.find((entry) => entry.name === name)!;
    const module = `./${path.basename(binding.file).replace(/\.ts$/, ".js")}`;
    lines.push(`import { ${name} as tool${toolIndex} } from ${JSON.stringify(module)};`);
    lines.push(`type P${toolIndex} = ${paramsType(file, name, `tool${toolIndex}`)};`);
  });
  const header = lines.length;
  names.forEach((name, toolIndex) => {
    values.get(name)!.forEach((value, index) => {
      lines.push(`export const v${toolIndex}_${index}: P${toolIndex} = ${JSON.stringify(value)};`);
      owners.push({ tool: name, index });
    });
  });
  const oracle = project.createSourceFile(path.join(toolsDir, "__oracle__.ts"), lines.join("\n"), { overwrite: true });
  project.resolveSourceFileDependencies();
  const result = new Map(names.map((name) => [name, values.get(name)!.map(() => true)]));
  const program = project.getProgram().compilerObject;
  const sourceFile = program.getSourceFile(oracle.getFilePath())!;
  const diagnostics = [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)];
  for (const diagnostic of diagnostics) {
    const line = sourceFile.getLineAndCharacterOfPosition(diagnostic.start!).line;
    if (line < header) throw new Error(`oracle header does not compile: ${JSON.stringify(diagnostic.messageText)}`);
    const owner = owners[line - header]!;
    result.get(owner.tool)![owner.index] = false;
  }
  return result;
}

const anyJson: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null), fc.boolean(), fc.integer({ min: -3, max: 3 }), fc.string({ maxLength: 4 }),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.stringMatching(/^[a-e]{1,2}$/), tie("value"), { maxKeys: 3 }),
  ),
})).value;

/**
 * Values shaped by the schema (so many of them are valid), each node sometimes swapped for any JSON
 * value and objects sometimes given an extra key, so near misses are common too.
 */
function valuesFor(schema: JsonSchema, definitions: JsonSchema, depth = 0): fc.Arbitrary<JsonValue> {
  const shaped = shapedValues(schema, definitions, depth);
  return fc.oneof({ arbitrary: shaped, weight: 6 }, { arbitrary: anyJson, weight: 1 });
}

function shapedValues(schema: JsonSchema, definitions: JsonSchema, depth: number): fc.Arbitrary<JsonValue> {
  if (typeof schema.$ref === "string") {
    if (depth > 3) return anyJson;
    return valuesFor(definitions[schema.$ref.slice("#/definitions/".length)] as JsonSchema, definitions, depth + 1);
  }
  if (Array.isArray(schema.anyOf)) return fc.oneof(...schema.anyOf.map((branch) => valuesFor(branch as JsonSchema, definitions, depth + 1)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if ("const" in schema) return fc.constant(schema.const!);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => shapedValues({ ...schema, type }, definitions, depth)));
  switch (schema.type) {
    case "string": return fc.oneof(fc.string({ maxLength: 5 }), fc.constantFrom("a", "b", "red"));
    case "number": return fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
    case "boolean": return fc.boolean();
    case "null": return fc.constant(null);
    case "array": {
      if (Array.isArray(schema.items)) return fc.tuple(...schema.items.map((item) => valuesFor(item as JsonSchema, definitions, depth + 1)));
      const items = typeof schema.items === "object" && schema.items !== null ? (schema.items as JsonSchema) : {};
      return fc.array(valuesFor(items, definitions, depth + 1), { maxLength: depth > 2 ? 1 : 3 });
    }
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = (schema.required ?? []) as string[];
      const known = fc.record(
        Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, valuesFor(property, definitions, depth + 1)])),
        { requiredKeys: required.filter((name) => name in properties) },
      ) as fc.Arbitrary<{ [key: string]: JsonValue }>;
      const extra = typeof schema.additionalProperties === "object" && schema.additionalProperties !== null
        ? fc.dictionary(fc.stringMatching(/^[a-e]{1,2}$/), valuesFor(schema.additionalProperties as JsonSchema, definitions, depth + 1), { maxKeys: 3 })
        : fc.oneof({ arbitrary: fc.constant({}), weight: 5 }, { arbitrary: fc.record({ zz: anyJson }), weight: 1 });
      return fc.tuple(known, extra).map(([a, b]) => ({ ...b, ...a }));
    }
    default: return anyJson;
  }
}

function compareTools(toolsDir: string, file: SchemasFile, names: string[]): Verdict[] {
  const values = new Map<string, JsonValue[]>();
  names.forEach((name, index) => {
    const parameters = file.tools.find((tool) => tool.function.name === name)!.function.parameters;
    values.set(name, fc.sample(valuesFor(parameters, (parameters.definitions ?? {}) as JsonSchema), { numRuns: VALUES_PER_TOOL, seed: SEED + index }));
  });
  const typescript = typescriptVerdicts(toolsDir, file, names, values);
  const verdicts: Verdict[] = [];
  for (const name of names) {
    const { validate } = compileStrict(file.tools.find((tool) => tool.function.name === name)!.function.parameters);
    values.get(name)!.forEach((value, index) => verdicts.push({ tool: name, value, typescript: typescript.get(name)![index]!, ajv: validate(value) }));
  }
  return verdicts;
}

function expectAgreement(verdicts: Verdict[]): void {
  expect(verdicts.filter((verdict) => verdict.typescript !== verdict.ajv)).toEqual([]);
  // Both answers must be common, or agreement would prove little.
  const accepted = verdicts.filter((verdict) => verdict.typescript).length;
  expect(accepted).toBeGreaterThan(verdicts.length * 0.2);
  expect(verdicts.length - accepted).toBeGreaterThan(verdicts.length * 0.2);
}

/** Ajv without strict mode, for asking which union branch a value fits. */
const branchAjv = addFormats(new Ajv({ strict: false }));

function fitsBranch(branch: JsonSchema, definitions: JsonSchema, value: JsonValue): boolean {
  return branchAjv.validate({ ...branch, definitions }, value) as boolean;
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A valid value as a model under strict decoding sends it: every optional member it left out present as
 * `null`, at every depth, following the lenient schema (the branch of a union that the value fits).
 */
function strictForm(value: JsonValue, schema: JsonSchema, definitions: JsonSchema): JsonValue {
  if (typeof schema.$ref === "string") return strictForm(value, definitions[schema.$ref.slice("#/definitions/".length)] as JsonSchema, definitions);
  if (Array.isArray(schema.anyOf)) {
    const branch = schema.anyOf.find((entry) => fitsBranch(entry as JsonSchema, definitions, value)) as JsonSchema | undefined;
    return branch === undefined ? value : strictForm(value, branch, definitions);
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => {
      const items = Array.isArray(schema.items) ? schema.items[index] : schema.items;
      return isObject(items) ? strictForm(item, items, definitions) : item;
    });
  }
  if (!isObject(value) || !isObject(schema.properties)) return value;
  const out: { [key: string]: JsonValue } = {};
  for (const [key, member] of Object.entries(schema.properties)) out[key] = Object.hasOwn(value, key) ? strictForm(value[key]!, member as JsonSchema, definitions) : null;
  const rest = schema.additionalProperties;
  for (const [key, item] of Object.entries(value)) if (!Object.hasOwn(out, key)) out[key] = isObject(rest) ? strictForm(item, rest, definitions) : item;
  return out;
}

/**
 * For every value TypeScript accepts, of every tool offered strictly: its strict form passes the strict
 * schema, and after the runtime's null-as-absent step the lenient schema accepts it as it accepts the value.
 */
function expectStrictFormsAgree(file: SchemasFile, verdicts: Verdict[]): void {
  const failures: object[] = [];
  let checked = 0;
  for (const strict of file.strictTools!.filter((tool) => tool.function.strict === true)) {
    const name = strict.function.name;
    const lenient = file.tools.find((tool) => tool.function.name === name)!.function.parameters;
    const definitions = (lenient.definitions ?? {}) as JsonSchema;
    const strictValidate = compileStrict(strict.function.parameters).validate;
    const lenientValidate = compileStrict(lenient).validate;
    for (const verdict of verdicts.filter((entry) => entry.tool === name && entry.typescript)) {
      const form = strictForm(structuredClone(verdict.value), lenient, definitions);
      const back = structuredClone(form) as Record<string, unknown>;
      dropOptionalNulls(back, lenient);
      checked++;
      const result = { strict: strictValidate(form), lenient: lenientValidate(back) };
      if (!result.strict || !result.lenient) failures.push({ tool: name, value: verdict.value, form, ...result, lenientSchema: JSON.stringify(lenient) });
    }
  }
  expect(failures).toEqual([]);
  expect(checked).toBeGreaterThan(50);
}

describe("differential: TypeScript's checker against Ajv on the emitted schema", () => {
  it("agrees on the fixture tools", () => {
    const toolsDir = path.join(fixturesDir, "types");
    const file = generate(toolsDir).file!;
    // Left out, for reasons of TypeScript rather than of the schema: a string enum member is nominal
    // (the literal "red" is not a Color), a Date is no string, `unknown`/`any` accept everything; and
    // validation tags constrain values beyond what the type says.
    const excluded = new Set(["enums", "dates", "loose", "paramTags", "inlineTags", "memberTags", "search"]);
    const names = file.tools.map((tool) => tool.function.name).filter((name) => !excluded.has(name));
    const verdicts = compareTools(toolsDir, file, names);
    expectAgreement(verdicts);
    expectStrictFormsAgree(file, verdicts);
  });

  it("agrees on randomly generated types", () => {
    const types = fc.sample(typeText(), { numRuns: 30, seed: SEED });
    const source = types.map((type, index) => `/** Random type ${index}. @param p A value. @param q Another. */\nexport function t${index}(p: ${type}, q?: ${types[(index + 1) % types.length]}): void {}\n`).join("\n");
    const root = writeTree({ "tools/random.ts": source });
    const generation = generate(path.join(root, "tools"));
    expect(generation.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const file = generation.file!;
    for (const tool of file.tools) expect({ tool: tool.function.name, logged: compileStrict(tool.function.parameters).logged }).toEqual({ tool: tool.function.name, logged: [] });
    const verdicts = compareTools(path.join(root, "tools"), file, file.tools.map((tool) => tool.function.name));
    expectAgreement(verdicts);
    expectStrictFormsAgree(file, verdicts);
  });
});

/**
 * A small type grammar: primitives, literals, unions, arrays, tuples, objects with optional members,
 * records and `| null`. A union holds at most one object-like member: TypeScript's excess-property
 * check is looser across several object members than a closed JSON Schema, by design.
 */
function typeText(): fc.Arbitrary<string> {
  const primitive = fc.constantFrom("string", "number", "boolean", "null", '"a"', '"b"', "0", "1", "true");
  return fc.letrec<{ type: string; plain: string; object: string }>((tie) => ({
    type: fc.oneof({ depthSize: "small", maxDepth: 3 }, tie("plain"), tie("object"), tie("plain").map((t) => `${t} | null`),
      fc.tuple(tie("plain"), tie("plain"), fc.oneof(tie("plain"), tie("object"))).map((members) => `(${members.join(" | ")})`)),
    plain: fc.oneof({ depthSize: "small", maxDepth: 3 }, primitive, primitive,
      tie("type").map((t) => `(${t})[]`),
      tie("type").map((t) => `readonly (${t})[]`),
      fc.array(tie("type"), { minLength: 1, maxLength: 3 }).map((members) => `[${members.join(", ")}]`)),
    object: fc.oneof({ depthSize: "small", maxDepth: 3 },
      fc.uniqueArray(fc.tuple(fc.constantFrom("a", "b", "c", "d"), fc.boolean(), tie("type")), { minLength: 1, maxLength: 3, selector: ([name]) => name })
        .map((members) => `{ ${members.map(([name, optional, type]) => `${name}${optional ? "?" : ""}: ${type}`).join("; ")} }`),
      tie("type").map((t) => `Record<string, ${t}>`)),
  })).type;
}
