import { builtinModules } from "node:module";
import type { ts as Compiler } from "ts-morph";
import { ts } from "./compiler.js";

/**
 * What a program's own files (the tools, the local files they import, the declarations of packages they
 * use) can reach of Node's typings, read from their syntax trees: the Node modules they import (each
 * name of a named import, or the whole module), and every name they spell (any identifier, in any
 * position: a property name may be a global's too, `globalThis.process`). `complete` is false when a
 * file does something only the whole typings answer: augmenting a module or the global scope, or a
 * `/// <reference path>` pulling in declarations no import shows.
 */
export interface TypingsSeeds {
  /** `fs/promises#readFile` for a named import, `node:path` for a whole module; sorted. */
  modules: string[];
  /** Every identifier's text. */
  names: Set<string>;
  /** Every string that names a Node module (`process.getBuiltinModule("fs")`). */
  moduleNames: Set<string>;
  complete: boolean;
}

const builtins = new Set(builtinModules);

export function isNodeModule(specifier: string): boolean {
  return specifier.startsWith("node:") || builtins.has(specifier);
}

export function typingsSeeds(files: readonly ts.SourceFile[]): TypingsSeeds {
  const modules = new Set<string>();
  const names = new Set<string>();
  const moduleNames = new Set<string>();
  let complete = true;
  const whole = (specifier: ts.Node | undefined) => {
    if (specifier !== undefined && ts.isStringLiteralLike(specifier) && isNodeModule(specifier.text)) modules.add(specifier.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) names.add(node.text);
    else if (ts.isStringLiteralLike(node) && isNodeModule(node.text)) moduleNames.add(node.text);
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const specifier = node.moduleSpecifier;
      if (specifier !== undefined && ts.isStringLiteral(specifier) && isNodeModule(specifier.text)) {
        const named = ts.isImportDeclaration(node) ? namedImports(node) : namedExports(node);
        if (named === undefined) modules.add(specifier.text);
        else for (const name of named) modules.add(`${specifier.text}#${name}`);
      }
    } else if (ts.isExternalModuleReference(node)) whole(node.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) whole(node.argument.literal);
    else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require"))) whole(node.arguments[0]);
    else if (ts.isModuleDeclaration(node) && (ts.isStringLiteral(node.name) || node.name.text === "global")) complete = false;
    ts.forEachChild(node, visit);
  };
  for (const file of files) {
    if (file.referencedFiles.length > 0) complete = false;
    visit(file);
  }
  return { modules: [...modules].sort(), names, moduleNames, complete };
}

/** The names a named-only import brings in; undefined when it brings the whole module (default, namespace, side effect). */
function namedImports(node: Compiler.ImportDeclaration): string[] | undefined {
  const clause = node.importClause;
  if (clause === undefined || clause.name !== undefined || clause.namedBindings === undefined || !ts.isNamedImports(clause.namedBindings)) return undefined;
  return clause.namedBindings.elements.map((element) => (element.propertyName ?? element.name).text);
}

function namedExports(node: Compiler.ExportDeclaration): string[] | undefined {
  const clause = node.exportClause;
  if (clause === undefined || !ts.isNamedExports(clause)) return undefined;
  return clause.elements.map((element) => (element.propertyName ?? element.name).text);
}
