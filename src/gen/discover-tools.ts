import path from "node:path";
import type { ArrowFunction, FunctionDeclaration, FunctionExpression, SourceFile } from "ts-morph";
import { Node, ts } from "./compiler.js";
import { diagnosticAt, type Diagnostic } from "./diagnostic.js";

export type ToolFunction = FunctionDeclaration | ArrowFunction | FunctionExpression;

/** An exported function of a tool file: a tool named by its export name. */
export interface DiscoveredTool {
  name: string;
  /** The tool file that exports it (absolute path). */
  file: string;
  fn: ToolFunction;
  /** The node that carries the tool's JSDoc and names its location: the function or the `const`. */
  declaration: FunctionDeclaration | Node;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The tools of one file: `export function`, `export async function` and `export const f = (…) => …`
 * (or a function expression). Exported types and values that are not functions are ignored, so a
 * file of shared types contributes no tools. `export default` has no name a model could call.
 *
 * A function is a tool of the file that declares it: a re-export (`export * from "./a"`,
 * `export { g } from "../lib/g"`) is not a second tool. Re-exported from another tool file, it is that
 * file's tool already; re-exported from other source code, it is ignored with a warning. A function of a
 * compiled package, known by its declaration (`.d.ts`), is a tool of the tool file that re-exports it:
 * `export { read_file } from "sigloop/tools"` is how a project takes sigloop's built-in tools.
 */
export function discoverTools(sourceFile: SourceFile, toolFiles: ReadonlySet<string>): { tools: DiscoveredTool[]; diagnostics: Diagnostic[] } {
  const tools: DiscoveredTool[] = [];
  const diagnostics: Diagnostic[] = [];
  const file = sourceFile.getFilePath();
  for (const [name, declarations] of sourceFile.getExportedDeclarations()) {
    if (name === "default") {
      diagnostics.push(diagnosticAt(declarations[0] ?? sourceFile, "error",
        "a default export has no name a model can call it by; export it by name instead (export function my_tool(…) or export const my_tool = (…) => …)"));
      continue;
    }
    const found = declarations.map((declaration) => ({ declaration, fn: toolFunctionOf(declaration) })).find((entry) => entry.fn !== undefined);
    if (found?.fn === undefined) continue;
    const { declaration, fn } = found;
    const home = declaration.getSourceFile().getFilePath();
    if (home !== file && !declaration.getSourceFile().isDeclarationFile()) {
      if (!toolFiles.has(home)) {
        diagnostics.push(diagnosticAt(reExportOf(sourceFile, name), "warning",
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
    tools.push({ name, file, fn, declaration: Node.isVariableDeclaration(declaration) ? declaration : fn });
  }
  return { tools: tools.sort((a, b) => a.name.localeCompare(b.name)), diagnostics };
}

/** The export statement of this file that brings in `name` from elsewhere (for the warning's place). */
function reExportOf(sourceFile: SourceFile, name: string): Node {
  const exports = sourceFile.getExportDeclarations();
  const named = exports.find((declaration) => declaration.getNamedExports().some((specifier) => (specifier.getAliasNode()?.getText() ?? specifier.getName()) === name));
  return named ?? exports.find((declaration) => declaration.isNamespaceExport()) ?? sourceFile;
}

/** The first of several signatures of `fn`, when it has more than one. */
function firstOverload(fn: ToolFunction): Node | ts.Node | undefined {
  if (!Node.isFunctionDeclaration(fn)) return undefined;
  // A declaration (`.d.ts`) has no implementation: each signature is a body-less declaration.
  if (fn.getSourceFile().isDeclarationFile()) return fn.getOverloads().length > 1 ? fn.getOverloads()[0] : undefined;
  // A file that compiles has an implementation's signatures right before it; the compiler's nodes
  // tell that without ts-morph wrapping every statement of the file.
  const implementation = fn.compilerNode;
  const parent = implementation.parent;
  if (!ts.isSourceFile(parent) && !ts.isModuleBlock(parent)) return fn.getOverloads()[0];
  const statements = parent.statements;
  let first: ts.Node | undefined;
  for (let index = statements.indexOf(implementation) - 1; index >= 0; index--) {
    const statement = statements[index]!;
    if (!ts.isFunctionDeclaration(statement) || statement.body !== undefined || statement.name?.text !== implementation.name?.text) break;
    first = statement;
  }
  return first;
}

function toolFunctionOf(declaration: Node): ToolFunction | undefined {
  if (Node.isFunctionDeclaration(declaration)) {
    if (declaration.getSourceFile().isDeclarationFile()) return declaration;
    return declaration.isOverload() ? declaration.getImplementation() : declaration;
  }
  if (Node.isVariableDeclaration(declaration)) {
    const initializer = declaration.getInitializer();
    if (Node.isArrowFunction(initializer) || Node.isFunctionExpression(initializer)) return initializer;
  }
  return undefined;
}

/** The JSDoc-carrying node of a tool: a `const` declaration's comment sits on its statement. */
export function docHost(tool: DiscoveredTool): Node {
  if (Node.isVariableDeclaration(tool.declaration)) return tool.declaration.getVariableStatement() ?? tool.declaration;
  return tool.declaration;
}
