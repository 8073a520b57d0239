import type { ArrowFunction, FunctionDeclaration, FunctionExpression, SourceFile } from "ts-morph";
import { Node } from "./compiler.js";
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
 */
export function discoverTools(sourceFile: SourceFile): { tools: DiscoveredTool[]; diagnostics: Diagnostic[] } {
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
    if (!TOOL_NAME.test(name)) {
      diagnostics.push(diagnosticAt(declaration, "error",
        `tool name "${name}" is not accepted by model providers, which allow only letters, digits, _ and - (1 to 64 characters); rename the export`));
      continue;
    }
    tools.push({ name, file, fn, declaration: Node.isVariableDeclaration(declaration) ? declaration : fn });
  }
  return { tools: tools.sort((a, b) => a.name.localeCompare(b.name)), diagnostics };
}

function toolFunctionOf(declaration: Node): ToolFunction | undefined {
  // An overloaded function is called through its implementation's signature.
  if (Node.isFunctionDeclaration(declaration)) return declaration.isOverload() ? declaration.getImplementation() : declaration;
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
