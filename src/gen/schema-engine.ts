import { ts } from "./compiler.js";
import type { Definition, JsonSchemaGenerator } from "typescript-json-schema";
import { loadTypescriptJsonSchema } from "./shared-compiler.js";

const tsjs = loadTypescriptJsonSchema();

/**
 * typescript-json-schema, driven over the type checker that ts-morph already built: one Program for
 * discovery and schemas, and a generator made once per checker instead of `buildGenerator`, which
 * walks every symbol of the program (~400 ms at 500 tools) before producing anything.
 *
 * The generator looks types up by name in the `allSymbols` table it is given; we own that table and put
 * each parameter type in it under a key no TypeScript name can take.
 */

/** The generator's internals this module relies on (public in the JavaScript, private in its typings). */
interface GeneratorInternals {
  getClassDefinition(type: ts.Type, definition: Definition): Definition;
  getTypeDefinition(type: ts.Type, asRef?: boolean, unionModifier?: string): Definition;
}

export interface TypeSchemas {
  /** One schema per key given. */
  schemas: Map<string, Definition>;
  /** Definitions the schemas refer to with `#/definitions/<name>` (recursive types only). */
  definitions: Record<string, Definition>;
}

export class SchemaEngine {
  private readonly table: Record<string, ts.Type> = {};
  private generator: JsonSchemaGenerator;

  constructor(private readonly checker: ts.TypeChecker) {
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
    // Callers adjust the schemas they get; the cached ones must stay as made.
    const schemas = new Map([...types].map(([key, type]) => [key, structuredClone(made.schemas.get(key) ?? this.cache.get(type)!)]));
    return { schemas, definitions: made.definitions };
  }

  private generate(types: ReadonlyMap<string, ts.Type>): TypeSchemas {
    const keys = [...types.keys()].map((key) => `#${key}`);
    for (const [key, type] of types) this.table[`#${key}`] = type;
    try {
      const root = this.generator.getSchemaForSymbols(keys, false);
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
    const generator = new tsjs.JsonSchemaGenerator([], this.table as unknown as Table, {}, {}, this.checker as unknown as Checker, args);
    keepRecordValueTypes(generator as unknown as GeneratorInternals, this.checker);
    return generator;
  }
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
