import { createRequire } from "node:module";
import type * as Morph from "ts-morph";
import { requireWithCodeCache } from "./code-cache.js";

/**
 * ts-morph and the TypeScript compiler it bundles, for all of src/gen: import `ts`, `Node` and
 * `Project` from here (types may come from "ts-morph" with `import type`).
 *
 * Loaded with `require`, not `import`: Node's ESM loader would first lex ts-morph's 1 MB of CommonJS
 * for its export names, on every run. The three bundles (compiler, @ts-morph/common, ts-morph) go
 * through the V8 code cache, in dependency order, so each later `require` of them finds them loaded.
 */
const require = createRequire(import.meta.url);
const morphEntry = require.resolve("ts-morph");
const commonEntry = createRequire(morphEntry).resolve("@ts-morph/common");
requireWithCodeCache(createRequire(commonEntry).resolve("./typescript"));
requireWithCodeCache(commonEntry);
const morph = requireWithCodeCache(morphEntry) as typeof Morph;

export const ts: typeof Morph.ts = morph.ts;
/** The compiler's types used in src/gen, so `ts.Type` reads as it would with ts-morph's own `ts`. */
export declare namespace ts {
  type CompilerOptions = Morph.ts.CompilerOptions;
  type Diagnostic = Morph.ts.Diagnostic;
  type Expression = Morph.ts.Expression;
  type Node = Morph.ts.Node;
  type NumericLiteral = Morph.ts.NumericLiteral;
  type ParameterDeclaration = Morph.ts.ParameterDeclaration;
  type Program = Morph.ts.Program;
  type Scanner = Morph.ts.Scanner;
  type SourceFile = Morph.ts.SourceFile;
  type SyntaxKind = Morph.ts.SyntaxKind;
  type StringLiteral = Morph.ts.StringLiteral;
  type Symbol = Morph.ts.Symbol;
  type Type = Morph.ts.Type;
  type TypeChecker = Morph.ts.TypeChecker;
  type TypeReference = Morph.ts.TypeReference;
  type TemplateLiteralType = Morph.ts.TemplateLiteralType;
  type UnionType = Morph.ts.UnionType;
}
export const Node: typeof Morph.Node = morph.Node;
export type Node = Morph.Node;
export const Project: typeof Morph.Project = morph.Project;
export type Project = Morph.Project;
