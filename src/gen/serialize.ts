import type { SchemasFile, ToolBinding, ToolDefinition } from "../shared/schemas-file.js";

/**
 * The bytes of a schemas file: keys in a fixed order at every level, 2-space indentation, a trailing
 * newline, nothing that varies between runs. Parameters arrive already in canonical order.
 */
export function serializeSchemasFile(file: SchemasFile): string {
  const ordered: SchemasFile = {
    tools: file.tools.map(orderDefinition),
    bindings: file.bindings.map(orderBinding),
    inputs: { toolsDir: file.inputs.toolsDir, files: file.inputs.files, hash: file.inputs.hash },
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

function orderDefinition(tool: ToolDefinition): ToolDefinition {
  const { name, description, parameters } = tool.function;
  return { type: "function", function: { name, description, parameters } };
}

function orderBinding(binding: ToolBinding): ToolBinding {
  const call = binding.call.kind === "positional" ? { kind: binding.call.kind, params: binding.call.params } : { kind: binding.call.kind };
  return { name: binding.name, file: binding.file, exportName: binding.exportName, call };
}
