import path from "node:path";
import type { ts as Compiler } from "ts-morph";
import { ts } from "../program/compiler.js";
import { diagnosticAt, type Diagnostic } from "../diagnostic.js";
import { compareToolNames } from "./tool-name-order.js";

export type ToolFunction = ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression;

/** An exported function of a tool file: a tool named by its export name. */
export interface DiscoveredTool {
  name: string;
  /** The tool file that exports it (absolute path). */
  file: string;
  fn: ToolFunction;
  /** The node that carries the tool's JSDoc and names its location: the function or the `const`. */
  declaration: ts.FunctionDeclaration | ts.Node;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The tools of one file: `export function`, `export async function` and `export const f = (…) => …`
 * (or a function expression), and `export const aliased = inner` of such a function, a tool named
 * `aliased`; either through parentheses, `as`, `<T>`, `satisfies` and `!`. Exported types and values
 * that are not functions are ignored, so a file of shared types contributes no tools; a function value
 * gen cannot read (`inner.bind(null)`) is a warning. `export default` has no name a model could call.
 *
 * A function is a tool of the file that declares it: a re-export (`export * from "./a"`,
 * `export { g } from "../lib/g"`) is not a second tool. Re-exported from another tool file, it is that
 * file's tool already; re-exported from other source code, it is ignored with a warning. A function of a
 * compiled package, known by its declaration (`.d.ts`), is a tool of the tool file that re-exports it:
 * `export { read_file } from "sigloop/tools"` is how a project takes sigloop's built-in tools.
 */
export function discoverTools(sourceFile: ts.SourceFile, toolFiles: ReadonlySet<string>, checker: ts.TypeChecker): { tools: DiscoveredTool[]; diagnostics: Diagnostic[] } {
  const tools: DiscoveredTool[] = [];
  const diagnostics: Diagnostic[] = [];
  const file = sourceFile.fileName;
  for (const [name, exported] of exportedDeclarations(sourceFile, checker)) {
    if (name === "default") {
      diagnostics.push(diagnosticAt(exported[0]?.site ?? sourceFile, "error",
        "a default export has no name a model can call it by; export it by name instead (export function my_tool(…) or export const my_tool = (…) => …)"));
      continue;
    }
    const found = exported.map((entry) => ({ ...entry, fn: toolFunctionOf(entry.declaration) })).find((entry) => entry.fn !== undefined);
    if (found?.fn === undefined) {
      const unread = unreadFunctionValue(exported, checker);
      if (unread !== undefined) diagnostics.push(unreadFunctionDiagnostic(name, unread));
      continue;
    }
    const { fn, site } = found;
    // `export const aliased = inner`: the export's own JSDoc describes the tool, else the function's.
    const declaration = ts.isVariableDeclaration(site) && site !== found.declaration && hasJsDoc(site) ? site : found.declaration;
    // Whose tool it is follows the function, wherever its description comes from.
    const home = found.declaration.getSourceFile().fileName;
    if (home !== file && !found.declaration.getSourceFile().isDeclarationFile) {
      if (!toolFiles.has(home)) {
        diagnostics.push(diagnosticAt(ts.isVariableDeclaration(site) ? site : reExportOf(sourceFile, name), "warning",
          `"${name}" is re-exported from ${path.relative(path.dirname(file), home)}, which is not a tool file, so it is not a tool; a tool is a function exported by the tool file that declares it: move it here or wrap it in a function declared here`));
      }
      continue;
    }
    const overload = firstOverload(fn);
    if (overload !== undefined) {
      diagnostics.push(diagnosticAt(overload, "error",
        `tool "${name}" is overloaded, and one tool has one parameters schema; give it a single signature (a union parameter type covers several call forms)`));
      continue;
    }
    if (!TOOL_NAME.test(name)) {
      diagnostics.push(diagnosticAt(declaration, "error",
        `tool name "${name}" is not accepted by model providers, which allow only letters, digits, _ and - (1 to 64 characters); rename the export`));
      continue;
    }
    tools.push({ name, file, fn, declaration: ts.isVariableDeclaration(declaration) ? declaration : fn });
  }
  return { tools: tools.sort((a, b) => compareToolNames(a.name, b.name)), diagnostics };
}

/** The export statement of this file that brings in `name` from elsewhere (for the warning's place). */
function reExportOf(sourceFile: ts.SourceFile, name: string): ts.Node {
  const exports = sourceFile.statements.filter(ts.isExportDeclaration);
  const named = exports.find((declaration) => declaration.exportClause !== undefined && ts.isNamedExports(declaration.exportClause) && declaration.exportClause.elements.some((specifier) => specifier.name.text === name));
  return named ?? exports.find((declaration) => declaration.exportClause === undefined) ?? sourceFile;
}

/** The first of several signatures of `fn`, when it has more than one. */
function firstOverload(fn: ToolFunction): ts.Node | undefined {
  if (!ts.isFunctionDeclaration(fn)) return undefined;
  // A declaration (`.d.ts`) has no implementation: each signature is a body-less declaration.
  if (fn.getSourceFile().isDeclarationFile) {
    const overloads = signaturesOf(fn).filter((signature) => signature.body === undefined);
    return overloads.length > 1 ? overloads[0] : undefined;
  }
  // A file that compiles has an implementation's signatures right before it.
  const parent = fn.parent;
  if (!ts.isSourceFile(parent) && !ts.isModuleBlock(parent)) return signaturesOf(fn).find((signature) => signature.body === undefined);
  const statements = parent.statements;
  let first: ts.Node | undefined;
  for (let index = statements.indexOf(fn) - 1; index >= 0; index--) {
    const statement = statements[index]!;
    if (!ts.isFunctionDeclaration(statement) || statement.body !== undefined || statement.name?.text !== fn.name?.text) break;
    first = statement;
  }
  return first;
}

/** The function declarations of the same name beside `fn` (itself included): its overloads and implementation. */
function signaturesOf(fn: ts.FunctionDeclaration): ts.FunctionDeclaration[] {
  const signatures: ts.FunctionDeclaration[] = [];
  ts.forEachChild(fn.parent, (sibling) => {
    if (ts.isFunctionDeclaration(sibling) && sibling.name?.text === fn.name?.text) signatures.push(sibling);
  });
  return signatures;
}

/** The function a tool's declaration holds: itself (its implementation, when overloaded), or a `const`'s function. */
export function toolFunctionOf(declaration: ts.Node): ToolFunction | undefined {
  if (ts.isFunctionDeclaration(declaration)) {
    if (declaration.getSourceFile().isDeclarationFile || declaration.body !== undefined) return declaration;
    return signaturesOf(declaration).find((signature) => signature.body !== undefined);
  }
  if (ts.isVariableDeclaration(declaration)) {
    const initializer = heldValue(declaration.initializer);
    if (initializer !== undefined && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))) return initializer;
  }
  return undefined;
}

/**
 * The value a `const` holds, through what only the compiler sees: parentheses, `as`, `<T>`, `satisfies`
 * and `!` leave the same function at runtime (`(inner)`, `inner as typeof inner` export `inner` itself).
 */
function heldValue(initializer: ts.Expression | undefined): ts.Expression | undefined {
  let expression = initializer;
  while (expression !== undefined && (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression) || ts.isTypeAssertionExpression(expression) || ts.isSatisfiesExpression(expression) || ts.isNonNullExpression(expression))) {
    expression = expression.expression;
  }
  return expression;
}

/** One declaration behind an export, and the export's own declaration in the module (`site`). */
interface ExportedDeclaration {
  declaration: ts.Node;
  site: ts.Node;
}

/**
 * A module's exports, by name, with the declarations behind each: through re-exports and imports to
 * where each is declared (as ts-morph's `getExportedDeclarations` finds them), and through a `const`
 * bound to a name (`export const aliased = inner`), which exports what the name holds.
 */
function exportedDeclarations(sourceFile: ts.SourceFile, checker: ts.TypeChecker): Map<string, ExportedDeclaration[]> {
  const result = new Map<string, ExportedDeclaration[]>();
  const moduleSymbol = checker.getSymbolAtLocation(sourceFile);
  if (moduleSymbol === undefined) return result;
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    for (const site of symbol.getDeclarations() ?? []) {
      const found = [...declarationsBehind(site, checker, new Set())].map((declaration) => ({ declaration, site }));
      const existing = result.get(symbol.name);
      if (existing === undefined) result.set(symbol.name, found);
      else existing.push(...found);
    }
  }
  return result;
}

function* declarationsBehind(declaration: ts.Node, checker: ts.TypeChecker, visited: Set<ts.Node>): Generator<ts.Node> {
  // A chain of `const a = b` can only loop in code that does not compile, but gen must still end.
  if (visited.has(declaration)) return;
  visited.add(declaration);
  const behind = function* (symbol: ts.Symbol | undefined): Generator<ts.Node> {
    for (const found of symbol?.getDeclarations() ?? []) yield* declarationsBehind(found, checker, visited);
  };
  const aliased = (name: ts.Node | undefined): ts.Symbol | undefined => {
    const symbol = name === undefined ? undefined : checker.getSymbolAtLocation(name);
    if (symbol === undefined) return undefined;
    return ((symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : undefined) ?? symbol;
  };
  if (ts.isExportSpecifier(declaration)) yield* behind(checker.getExportSpecifierLocalTargetSymbol(declaration));
  else if (ts.isExportAssignment(declaration)) {
    if (ts.isIdentifier(declaration.expression)) yield* behind(checker.getSymbolAtLocation(declaration.expression));
    else yield declaration.expression;
  } else if (ts.isImportSpecifier(declaration) || ts.isImportClause(declaration) || ts.isNamespaceImport(declaration) || ts.isNamespaceExport(declaration)) {
    yield* behind(aliased(declaration.name));
  } else {
    const held = ts.isVariableDeclaration(declaration) ? heldValue(declaration.initializer) : undefined;
    if (held !== undefined && ts.isIdentifier(held)) yield* behind(aliased(held));
    else yield declaration;
  }
}

/**
 * An exported `const` holding a function gen cannot read as one (`inner.bind(null)`, `withRetry(inner)`,
 * `factory()`): its parameters and JSDoc are not written where it is declared. A `const` of any other
 * value (a number, an object of settings, a class) is no tool and needs no word.
 */
function unreadFunctionValue(exported: readonly ExportedDeclaration[], checker: ts.TypeChecker): Compiler.VariableDeclaration | undefined {
  const site = exported[0]?.site;
  if (site === undefined || !ts.isVariableDeclaration(site) || site.initializer === undefined) return undefined;
  return checker.getTypeAtLocation(site.name).getCallSignatures().length > 0 ? site : undefined;
}

function unreadFunctionDiagnostic(name: string, site: Compiler.VariableDeclaration): Diagnostic {
  const held = site.initializer!.getText();
  const shown = held.length > 40 ? `${held.slice(0, 39)}…` : held;
  return diagnosticAt(site, "warning",
    `"${name}" is exported as a function value (${shown}), whose parameters and JSDoc gen cannot read, so it is not a tool; declare it as a function here: export function ${name}(…) { … } or export const ${name} = (…) => …, calling what it holds`);
}

function hasJsDoc(declaration: Compiler.VariableDeclaration): boolean {
  const statement = declaration.parent.parent;
  return ts.isVariableStatement(statement) && ts.getJSDocCommentsAndTags(statement).length > 0;
}

/** The JSDoc-carrying node of a tool: a `const` declaration's comment sits on its statement. */
export function docHost(tool: DiscoveredTool): ts.Node {
  const declaration = tool.declaration;
  if (ts.isVariableDeclaration(declaration) && ts.isVariableStatement(declaration.parent.parent)) return declaration.parent.parent;
  return declaration;
}
