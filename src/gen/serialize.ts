import type { SchemasFile, ToolAnnotations, ToolBinding, ToolDefinition } from "../shared/schemas-file.js";
import { ANNOTATION_ORDER } from "./reflect/tool-annotations.js";

/**
 * The bytes of a schemas file: keys in a fixed order at every level, 2-space indentation, a trailing
 * newline, nothing that varies between runs. Parameters arrive already in canonical order.
 */
export function serializeSchemasFile(file: SchemasFile): string {
  const ordered: SchemasFile = {
    tools: file.tools.map(orderDefinition),
    ...(file.strictTools !== undefined ? { strictTools: file.strictTools.map(orderDefinition) } : {}),
    bindings: file.bindings.map(orderBinding),
    outputs: byName(file.outputs ?? {}, (schema) => schema),
    annotations: byName(file.annotations ?? {}, orderAnnotations),
    inputs: { toolsDir: file.inputs.toolsDir, files: file.inputs.files, hash: file.inputs.hash },
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

function orderDefinition(tool: ToolDefinition): ToolDefinition {
  const { name, description, parameters, strict } = tool.function;
  return { type: "function", function: { name, description, parameters, ...(strict !== undefined ? { strict } : {}) } };
}

function orderBinding(binding: ToolBinding): ToolBinding {
  const call = binding.call.kind === "positional" ? { kind: binding.call.kind, params: binding.call.params } : { kind: binding.call.kind };
  return { name: binding.name, file: binding.file, exportName: binding.exportName, call };
}

/** A by-tool-name map with its keys sorted (code-point order, like the tools). */
function byName<T>(map: { [name: string]: T }, order: (value: T) => T): { [name: string]: T } {
  const names = Object.keys(map).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(names.map((name) => [name, order(map[name]!)]));
}

function orderAnnotations(annotations: ToolAnnotations): ToolAnnotations {
  return Object.fromEntries(ANNOTATION_ORDER.filter((key) => annotations[key] !== undefined).map((key) => [key, annotations[key]]));
}
