/**
 * MCP annotations from a tool's JSDoc: `@readOnly`, `@destructive`, `@idempotent` and `@openWorld`, each
 * bare (true) or followed by `true` / `false`, become `readOnlyHint`, `destructiveHint`, `idempotentHint`
 * and `openWorldHint`. Only the tags written are recorded, so a client applies MCP's own defaults to the
 * rest. They are hints for a client's consent and display, never enforced by the runtime.
 */
import { ts } from "../program/compiler.js";
import { lastJsDoc } from "./tool-docs.js";
import type { ToolAnnotations } from "../../shared/schemas-file.js";

const HINTS: Record<string, keyof ToolAnnotations> = {
  readOnly: "readOnlyHint",
  destructive: "destructiveHint",
  idempotent: "idempotentHint",
  openWorld: "openWorldHint",
};

/** The annotations in the order MCP's schema lists them: the schemas file's bytes do not depend on tag order. */
export const ANNOTATION_ORDER: readonly (keyof ToolAnnotations)[] = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];

export function readToolAnnotations(host: ts.Node, toolName: string): { annotations?: ToolAnnotations; problems: string[] } {
  const found: ToolAnnotations = {};
  const problems: string[] = [];
  for (const tag of lastJsDoc(host)?.tags ?? []) {
    const hint = HINTS[tag.tagName.text];
    if (hint === undefined) continue;
    const text = (ts.getTextOfJSDocComment(tag.comment) ?? "").trim();
    if (text !== "" && text !== "true" && text !== "false") {
      problems.push(`tag @${tag.tagName.text} of tool "${toolName}" takes nothing, true or false, not ${JSON.stringify(text)}`);
      continue;
    }
    found[hint] = text !== "false";
  }
  if (found.readOnlyHint === true && found.destructiveHint === true) {
    problems.push(`tool "${toolName}" is tagged both @readOnly and @destructive; a read-only tool changes nothing, so drop one`);
  }
  const annotations: ToolAnnotations = {};
  for (const key of ANNOTATION_ORDER) if (found[key] !== undefined) annotations[key] = found[key];
  return Object.keys(annotations).length > 0 ? { annotations, problems } : { problems };
}
