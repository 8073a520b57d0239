import { ts } from "../program/compiler.js";
import type { Definition, JsonSchemaGenerator } from "typescript-json-schema";
import type { LibraryDocs } from "../program/library-docs.js";
import { loadTypescriptJsonSchema } from "../program/shared-compiler.js";
import { visibleMembers } from "../reflect/json-compat.js";

const tsjs = loadTypescriptJsonSchema();

/**
 * typescript-json-schema, driven over the type checker gen already built: one Program for
 * discovery and schemas, and a generator made once per checker instead of `buildGenerator`, which
 * walks every symbol of the program (~400 ms at 500 tools) before producing anything.
 *
 * The generator looks types up by name in the `allSymbols` table it is given; we own that table and put
 * each parameter type in it under a key no TypeScript name can take.
 */

/** The generator's internals this module relies on (public in the JavaScript, private in its typings). */
interface GeneratorInternals {
  parseCommentsIntoDefinition(symbol: ts.Symbol | undefined, definition: Definition, otherAnnotations: object): void;
  getClassDefinition(type: ts.Type, definition: Definition): Definition;
  getTypeDefinition(type: ts.Type, asRef?: boolean, unionModifier?: string, ...rest: unknown[]): Definition;
  getUnionDefinition(type: ts.UnionType, unionModifier: string, definition: Definition): Definition;
  getDefinitionForProperty(prop: ts.Symbol, node: ts.Node): Definition | null;
  getReferencedTypeSymbol(prop: ts.Symbol): ts.Symbol | undefined;
}

export interface TypeSchemas {
  /**
   * One schema per key given. A type described before gets the very object it got then (tools share
   * it), so callers copy a schema before they change it.
   */
  schemas: Map<string, Definition>;
  /** Definitions the schemas refer to with `#/definitions/<name>` (recursive types only). */
  definitions: Record<string, Definition>;
}

/**
 * How many types typescript-json-schema may expand for one tool before gen gives up: a small recursive
 * generic (`Obj<[...N, 0]>` with two members) doubles at every level, and without a bound depth 17 writes
 * 514 MB at 2 GB of memory. 20,000 expansions take a few seconds and far exceed any real tool's.
 */
export const MAX_TYPE_EXPANSIONS = 20_000;

/** Thrown when one tool's types need more than `MAX_TYPE_EXPANSIONS` expansions. */
export class SchemaTooLargeError extends Error {
  constructor() {
    super(`its schema needs more than ${MAX_TYPE_EXPANSIONS} type expansions (a recursive generic type that grows with every level?)`);
    this.name = "SchemaTooLargeError";
  }
}

export class SchemaEngine {
  private readonly table: Record<string, ts.Type> = {};
  /** Expansions left for the `generate` in progress. */
  private budget = MAX_TYPE_EXPANSIONS;
  private generator: JsonSchemaGenerator;

  /** Every documentation read of the generator goes through `docs` first. */
  constructor(
    private readonly checker: ts.TypeChecker,
    readonly docs: LibraryDocs,
  ) {
    this.generator = this.createGenerator();
  }

  /**
   * Schemas of types already described with this checker. Tools share parameter types (`string`, an
   * imported `Options`, `Filter[]`), and the checker hands out one type object for each, so most
   * parameters after the first few tools cost a lookup. Only self-contained results are kept: a
   * schema that refers to definitions is made again with its definitions.
   */
  private readonly cache = new Map<ts.Type, Definition>();

  /** Schemas for several types that end up in one `parameters` object, so they share definitions. */
  schemasFor(types: ReadonlyMap<string, ts.Type>): TypeSchemas {
    const fresh = new Map([...types].filter(([, type]) => !this.cache.has(type)));
    const made = fresh.size > 0 ? this.generate(fresh) : { schemas: new Map<string, Definition>(), definitions: {} };
    if (Object.keys(made.definitions).length === 0) {
      for (const [key, type] of fresh) this.cache.set(type, made.schemas.get(key)!);
    }
    const schemas = new Map([...types].map(([key, type]) => [key, made.schemas.get(key) ?? this.cache.get(type)!]));
    return { schemas, definitions: made.definitions };
  }

  private generate(types: ReadonlyMap<string, ts.Type>): TypeSchemas {
    const keys = [...types.keys()].map((key) => `#${key}`);
    for (const [key, type] of types) this.table[`#${key}`] = type;
    this.budget = MAX_TYPE_EXPANSIONS;
    try {
      const root = withoutGeneratorNotes(() => this.generator.getSchemaForSymbols(keys, false));
      const schemas = new Map<string, Definition>();
      for (const [key] of types) schemas.set(key, root.definitions?.[`#${key}`] as Definition);
      // With `ref: false` the generator still emits `$ref`s for recursive types but leaves their
      // definitions out; they are in its reffed table.
      return { schemas, definitions: { ...this.generator.ReffedDefinitions } };
    } catch (error) {
      // A throw can leave the generator's recursion bookkeeping half-done; start from a clean one.
      this.generator = this.createGenerator();
      throw error;
    } finally {
      for (const key of keys) delete this.table[key];
    }
  }

  private createGenerator(): JsonSchemaGenerator {
    const args = {
      ...tsjs.getDefaultArgs(),
      ref: false,
      aliasRef: false,
      topRef: false,
      required: true,
      noExtraProps: true,
      strictNullChecks: true,
      validationKeywords: ["example", "deprecated"],
    };
    type Checker = ConstructorParameters<typeof JsonSchemaGenerator>[4];
    type Table = ConstructorParameters<typeof JsonSchemaGenerator>[1];
    const generator = new tsjs.JsonSchemaGenerator([], this.table as unknown as Table, {}, {}, withVisibleMembersOnly(this.checker) as unknown as Checker, args);
    const internals = generator as unknown as GeneratorInternals;
    const parseComments = internals.parseCommentsIntoDefinition.bind(generator);
    internals.parseCommentsIntoDefinition = (symbol, definition, otherAnnotations) => {
      this.docs.read(symbol);
      parseComments(symbol, definition, otherAnnotations);
    };
    keepRecordValueTypes(generator as unknown as GeneratorInternals, this.checker);
    describeIntersectionsAsJson(generator as unknown as GeneratorInternals, this.checker);
    matchTemplateLiteralsExactly(generator as unknown as GeneratorInternals, this.checker);
    leaveMemberInitializersOut(generator as unknown as GeneratorInternals, this.checker);
    const getTypeDefinition = internals.getTypeDefinition.bind(generator);
    internals.getTypeDefinition = (...args) => {
      if ((this.budget -= 1) < 0) throw new SchemaTooLargeError();
      return getTypeDefinition(...args);
    };
    return generator;
  }
}

/**
 * The checker as typescript-json-schema should see it: a class's `private`, `protected` and `#private`
 * members left out, as a caller can pass none of them (its `excludePrivate` knows only `private`). The
 * generator lists an object's members only through `getPropertiesOfType`.
 */
function withVisibleMembersOnly(checker: ts.TypeChecker): ts.TypeChecker {
  return Object.create(checker, {
    getPropertiesOfType: { value: (type: ts.Type) => visibleMembers(checker.getPropertiesOfType(type)) },
  }) as ts.TypeChecker;
}

/**
 * typescript-json-schema reads a string index signature only from a declaration's own members, so a
 * mapped type such as `Record<string, T>` comes out as a closed, empty object. Fill in the value type
 * from the checker's index info wherever that happened.
 */
function keepRecordValueTypes(generator: GeneratorInternals, checker: ts.TypeChecker): void {
  const getClassDefinition = generator.getClassDefinition.bind(generator);
  generator.getClassDefinition = (type, definition) => {
    const result = getClassDefinition(type, definition);
    const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
    if (index !== undefined && definition.additionalProperties === false) {
      definition.additionalProperties = generator.getTypeDefinition(index.type, undefined, "anyOf");
    }
    return result;
  };
}

/**
 * typescript-json-schema writes a member's initializer as the `default` of a member it keeps in
 * `required`: a class field's (`retries = 3`, `constructor(public label = "p")`) and an object
 * literal's property (`typeof SETTINGS` of `const SETTINGS = { mode: "fast" }`, at any depth). An
 * argument is a plain object from JSON, never constructed nor that literal, so the initializer never
 * runs and the runtime fills in nothing: the member must be sent, and a `default` would tell the model
 * it may be left out. Such a member is described as the generator describes it, without the
 * initializer; a `@default` tag on it stays, as on an interface's.
 */
function leaveMemberInitializersOut(generator: GeneratorInternals, checker: ts.TypeChecker): void {
  const getDefinitionForProperty = generator.getDefinitionForProperty.bind(generator);
  generator.getDefinitionForProperty = (prop, node) => {
    const declaration = prop.valueDeclaration;
    if (!isInitializedClassMember(declaration) && !isObjectLiteralMember(declaration)) return getDefinitionForProperty(prop, node);
    const type = checker.getTypeOfSymbolAtLocation(prop, node);
    const definition = generator.getTypeDefinition(type, undefined, undefined, prop, generator.getReferencedTypeSymbol(prop));
    return Object.hasOwn(definition, "ignore") ? null : definition;
  };
}

/** A class field, or a constructor's parameter property, written with an initializer. */
function isInitializedClassMember(declaration: ts.Node | undefined): boolean {
  return declaration !== undefined && (ts.isPropertyDeclaration(declaration) || ts.isParameter(declaration)) && declaration.initializer !== undefined;
}

/** A property of an object literal written with its value (`mode: "fast"`; a shorthand `mode` has no initializer to read). */
function isObjectLiteralMember(declaration: ts.Node | undefined): boolean {
  return declaration !== undefined && ts.isPropertyAssignment(declaration);
}

const PRIMITIVE = ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike | ts.TypeFlags.BooleanLike;

/**
 * typescript-json-schema (with `noExtraProps`) merges every intersection into one closed object. Two
 * intersections mean something else at runtime, where only the JSON value exists:
 * - a primitive intersected with object types (`string & { __brand: "Id" }`, `number & {}`) is a
 *   brand, which exists only at compile time: the value is the primitive (a branded `boolean` is the
 *   union `(true & B) | (false & B)`, so union members are unbranded too, and `true | false` reads as
 *   `boolean` again);
 * - an intersection with a string index signature (`{ a: string } & Record<string, string>`) accepts
 *   other keys, so it stays open with the index value type, as an interface with one does.
 */
function describeIntersectionsAsJson(generator: GeneratorInternals, checker: ts.TypeChecker): void {
  const getTypeDefinition = generator.getTypeDefinition.bind(generator);
  const getUnionDefinition = generator.getUnionDefinition.bind(generator);
  generator.getUnionDefinition = (type, unionModifier, definition) => {
    const members = type.types.map((member) => brandedPrimitive(member) ?? member);
    if (members.every((member, index) => member === type.types[index])) return getUnionDefinition(type, unionModifier, definition);
    // The generator reads only `types` of the union it is given.
    return getUnionDefinition(Object.create(type, { types: { value: members } }) as ts.UnionType, unionModifier, definition);
  };
  generator.getTypeDefinition = (type, asRef, unionModifier, ...rest) => {
    if (!type.isIntersection()) return getTypeDefinition(type, asRef, unionModifier, ...rest);
    const primitive = brandedPrimitive(type);
    if (primitive !== undefined) return getTypeDefinition(primitive, asRef, unionModifier, ...rest);
    const definition = getTypeDefinition(type, asRef, unionModifier, ...rest);
    const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
    if (index !== undefined && definition.additionalProperties === false) {
      definition.additionalProperties = getTypeDefinition(index.type, undefined, "anyOf");
    }
    return definition;
  };
}

function brandedPrimitive(type: ts.Type): ts.Type | undefined {
  return type.isIntersection() ? type.types.find((member) => (member.flags & PRIMITIVE) !== 0) : undefined;
}

/**
 * A JavaScript number as `String(n)` or a person writes it: `-1`, `1.5`, `.5`, `2.`, `1e-7`. Each text
 * matches one way only (no `\d+\.?\d*`, which splits a run of digits in every way), so a backtracking
 * engine never retries it quadratically.
 */
const NUMBER_PATTERN = String.raw`-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?`;
const ANY_TEXT = String.raw`[\s\S]*`;

/**
 * typescript-json-schema matches `${number}` with `[0-9]*` (accepting `id-`, rejecting `id-1.5`) and
 * silently drops the text before a placeholder it does not know. Build the pattern from the type's own
 * parts instead; a placeholder no pattern can express exactly (`Uppercase<string>`) is an error.
 */
function matchTemplateLiteralsExactly(generator: GeneratorInternals, checker: ts.TypeChecker): void {
  const getTypeDefinition = generator.getTypeDefinition.bind(generator);
  generator.getTypeDefinition = (type, ...rest) => {
    const definition = getTypeDefinition(type, ...rest);
    if (type.flags & ts.TypeFlags.TemplateLiteral) definition.pattern = templatePattern(type as ts.TemplateLiteralType, checker);
    return definition;
  };
}

/**
 * The pattern of a template literal type, written so that a backtracking engine (what MCP clients and
 * other validators run) stays linear on what gen writes: two `${string}` holes in a row are one, and a
 * `${string}` hole followed by one character and another `${string}` hole stops at that character's
 * first occurrence (`${string}:${string}:${number}` is `^[^:]*:[\s\S]*:…$`; whatever the first hole
 * would take beyond the first `:`, the second takes as well), so no two holes compete for the same text.
 */
function templatePattern(type: ts.TemplateLiteralType, checker: ts.TypeChecker): string {
  const holes = type.types.map((placeholder) => placeholderPattern(placeholder, type, checker));
  const parts = holes.map((hole, index) => {
    const text = type.texts[index + 1]!;
    if (hole !== ANY_TEXT || holes[index + 1] !== ANY_TEXT) return hole + escapeRegExp(text);
    if (text === "") return "";
    return [...text].length === 1 ? `[^${escapeRegExp(text)}]*${escapeRegExp(text)}` : hole + escapeRegExp(text);
  });
  return `^${escapeRegExp(type.texts[0]!)}${parts.join("")}$`;
}

function placeholderPattern(placeholder: ts.Type, template: ts.Type, checker: ts.TypeChecker): string {
  if (placeholder.flags & (ts.TypeFlags.String | ts.TypeFlags.Any)) return ANY_TEXT;
  if (placeholder.flags & ts.TypeFlags.Number) return NUMBER_PATTERN;
  if (placeholder.flags & ts.TypeFlags.BigInt) return "-?\\d+";
  throw new Error(`the template literal type ${checker.typeToString(template)} has a placeholder \${${checker.typeToString(placeholder)}} that no pattern expresses exactly; use \${string} or \${number} there`);
}

/** Escapes what the `u` flag allows escaping, which is all that has a meaning outside a class. */
function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/**
 * Runs typescript-json-schema with its console notes ("initializer is expression for property …",
 * printed for every returned object literal whose member is a call) dropped: they name no file, say
 * nothing a user can act on, and gen reads initializers itself (`literal-default.ts`). gen's own
 * diagnostics are the only lines a run prints about its tools.
 */
function withoutGeneratorNotes<T>(make: () => T): T {
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    return make();
  } finally {
    console.warn = warn;
  }
}
