import { ts } from "./compiler.js";

/**
 * The module specifiers a file imports, read from its syntax tree: `import … from`, `export … from`,
 * `import x = require(…)`, `import(…)` as a call or a type, at any depth (what `ts.preProcessFile`
 * finds by scanning the text again). `require(…)` calls are left out: `require` is a Node global, which
 * settles Node's typings on its own.
 */
export function importedModules(sourceFile: ts.SourceFile): string[] {
  const found: string[] = [];
  const visitStatements = (statements: readonly ts.Statement[]): void => {
    for (const statement of statements) {
      if ((ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier)) {
        found.push(statement.moduleSpecifier.text);
      } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference) && ts.isStringLiteral(statement.moduleReference.expression)) {
        found.push(statement.moduleReference.expression.text);
      } else if (ts.isModuleDeclaration(statement) && statement.body !== undefined && ts.isModuleBlock(statement.body)) {
        visitStatements(statement.body.statements);
      }
    }
  };
  visitStatements(sourceFile.statements);
  // `import(` in the text (comments included) is rare: only then is the whole tree walked.
  if (DYNAMIC_IMPORT.test(sourceFile.text)) {
    const visit = (node: ts.Node): void => {
      const argument = ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword ? node.arguments[0]
        : ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) ? node.argument.literal : undefined;
      if (argument !== undefined && ts.isStringLiteralLike(argument)) found.push(argument.text);
      ts.forEachChild(node, visit);
    };
    ts.forEachChild(sourceFile, visit);
  }
  return found;
}

// `import(`, or `import` before a comment that could sit between it and its `(`.
const DYNAMIC_IMPORT = /\bimport\s*(?:\(|\/[*/])/;
