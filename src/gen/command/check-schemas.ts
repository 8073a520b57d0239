import type { SchemasFile } from "../../shared/schemas-file.js";
import { commandLine } from "../../shared/package-layout.js";

/** What `--check` found: nothing (up to date) or the tools that differ and how. */
export interface CheckResult {
  upToDate: boolean;
  added: string[];
  removed: string[];
  changed: string[];
  /** Why the file on disk has no tools to compare: it does not exist, or it is no schemas file. */
  unreadable?: string;
}

/**
 * Compares the bytes on disk with what would be generated; when they differ, names the tools whose
 * definition or binding differs. A missing file, or one that is not a schemas file, says so instead.
 */
export function checkSchemas(onDisk: string | undefined, generated: SchemasFile, generatedText: string): CheckResult {
  if (onDisk === generatedText) return { upToDate: true, added: [], removed: [], changed: [] };
  const old = parseTools(onDisk);
  if (typeof old === "string") return { upToDate: false, added: [], removed: [], changed: [], unreadable: old };
  const current = toolSignatures(generated);
  const added = [...current.keys()].filter((name) => !old.has(name));
  const removed = [...old.keys()].filter((name) => !current.has(name));
  const changed = [...current.keys()].filter((name) => old.has(name) && old.get(name) !== current.get(name));
  return { upToDate: false, added, removed, changed };
}

export function describeCheck(result: CheckResult, shownFile: string): string {
  if (result.upToDate) return `${shownFile} is up to date`;
  if (result.unreadable !== undefined) return `${shownFile} is stale (${result.unreadable}); run ${commandLine("gen")}`;
  const parts = [
    result.added.length > 0 ? `added: ${result.added.join(", ")}` : "",
    result.removed.length > 0 ? `removed: ${result.removed.join(", ")}` : "",
    result.changed.length > 0 ? `changed: ${result.changed.join(", ")}` : "",
  ].filter((part) => part !== "");
  const what = parts.length > 0 ? parts.join("; ") : "no tool changed, but the recorded inputs differ";
  return `${shownFile} is stale (${what}); run ${commandLine("gen")}`;
}

/** Each tool's definition, binding, strict definition, output schema and annotations as one comparable string, by name. */
function toolSignatures(file: Pick<SchemasFile, "tools" | "strictTools" | "bindings" | "outputs" | "annotations">): Map<string, string> {
  const result = new Map<string, string>();
  for (const tool of file.tools) {
    const name = tool.function.name;
    const binding = file.bindings.find((entry) => entry.name === name);
    const strict = Array.isArray(file.strictTools) ? file.strictTools.find((entry) => entry.function.name === name) : undefined;
    result.set(name, JSON.stringify([tool, binding, file.outputs?.[name], file.annotations?.[name], strict]));
  }
  return result;
}

/** The tools of the file on disk by name, or why it has none to compare. */
function parseTools(text: string | undefined): Map<string, string> | string {
  if (text === undefined) return "it does not exist";
  let parsed: Partial<SchemasFile> | null;
  try {
    parsed = JSON.parse(text) as Partial<SchemasFile> | null;
  } catch {
    return "it is not JSON";
  }
  if (typeof parsed !== "object" || parsed === null || !Array.isArray(parsed.tools)) return "it is JSON but no schemas file: it has no tools array";
  return toolSignatures({ ...parsed, tools: parsed.tools, bindings: Array.isArray(parsed.bindings) ? parsed.bindings : [] });
}
