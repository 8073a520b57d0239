import { createRequire } from "node:module";
import type * as Morph from "ts-morph";
import { requireWithCodeCache } from "./code-cache.js";

/**
 * The TypeScript compiler ts-morph bundles, for all of src/gen: import `ts` from here (types may come
 * from "ts-morph" with `import type`).
 *
 * Loaded with `require`, not `import`: Node's ESM loader would first lex the 9 MB of CommonJS for its
 * export names, on every run; and through the V8 code cache. Neither ts-morph nor @ts-morph/common is
 * loaded: gen drives the compiler directly (`tool-host.ts`), with ts-morph's library files
 * (`lib-files.ts`).
 */
const require = createRequire(import.meta.url);
const commonEntry = createRequire(require.resolve("ts-morph")).resolve("@ts-morph/common");

export const ts = requireWithCodeCache(createRequire(commonEntry).resolve("./typescript")) as typeof Morph.ts;
/** The compiler's types used in src/gen, so `ts.Type` reads as it would with ts-morph's own `ts`. */
export declare namespace ts {
  type ArrowFunction = Morph.ts.ArrowFunction;
  type CompilerOptions = Morph.ts.CompilerOptions;
  type Diagnostic = Morph.ts.Diagnostic;
  type Expression = Morph.ts.Expression;
  type FunctionDeclaration = Morph.ts.FunctionDeclaration;
  type FunctionExpression = Morph.ts.FunctionExpression;
  type Identifier = Morph.ts.Identifier;
  type Node = Morph.ts.Node;
  type NumericLiteral = Morph.ts.NumericLiteral;
  type ParameterDeclaration = Morph.ts.ParameterDeclaration;
  type Program = Morph.ts.Program;
  type Scanner = Morph.ts.Scanner;
  type SourceFile = Morph.ts.SourceFile;
  type Statement = Morph.ts.Statement;
  type SyntaxKind = Morph.ts.SyntaxKind;
  type StringLiteral = Morph.ts.StringLiteral;
  type Symbol = Morph.ts.Symbol;
  type Type = Morph.ts.Type;
  type TypeChecker = Morph.ts.TypeChecker;
  type TypeNode = Morph.ts.TypeNode;
  type TypeReference = Morph.ts.TypeReference;
  type TemplateLiteralType = Morph.ts.TemplateLiteralType;
  type UnionType = Morph.ts.UnionType;
}
