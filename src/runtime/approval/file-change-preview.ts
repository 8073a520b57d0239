/**
 * The approval preview of the built-in file tools: the change a `write_file` or `edit_file` call would
 * make, as a unified diff against the file as it is now. Planning the call confines its path and applies
 * the tool's rules first, so a call the tool would refuse (a path outside the workspace, no match, a
 * binary file) is answered with that refusal and never asked about: nothing would change. The preview
 * carries the change it shows (`shown`); the executor hands it to that call's run, which writes only if
 * it would still make that change.
 */
import { planEdit, planWrite, shownChangeOf, type Plan } from "../workspace/file-change.js";
import type { ShownChange } from "../workspace/shown-change.js";

export type Preview = { refusal: string } | { preview: string; shown: ShownChange };

/** The preview for a call of a file tool, or `undefined` for any other tool. */
export async function previewFileChange(tool: string, args: Record<string, unknown>, workspace: string): Promise<Preview | undefined> {
  const plan = await planFor(tool, args, workspace);
  if (plan === undefined) return undefined;
  if ("refusal" in plan) return plan;
  const shown = shownChangeOf(plan);
  // The diff library loads with the first preview, not with every run that never changes a file.
  const { previewName, unifiedDiff } = await import("./unified-diff.js");
  const { before } = plan;
  if (before !== undefined && !("text" in before)) {
    const why = "tooLarge" in before ? `it is ${before.tooLarge} bytes` : `it looks like a binary file: ${before.binary}`;
    return { preview: `${unifiedDiff(plan.relative, undefined, plan.after)}\n(replaces the current ${previewName(plan.relative)}, not shown: ${why})`, shown };
  }
  return { preview: unifiedDiff(plan.relative, before?.text, plan.after), shown };
}

function planFor(tool: string, args: Record<string, unknown>, workspace: string): Promise<Plan> | undefined {
  const { path, content, old_text: oldText, new_text: newText, replace_all: replaceAll } = args;
  if (typeof path !== "string") return undefined;
  if (tool === "write_file" && typeof content === "string") return planWrite(workspace, path, content);
  if (tool === "edit_file" && typeof oldText === "string" && typeof newText === "string") {
    return planEdit(workspace, path, oldText, newText, replaceAll === true);
  }
  return undefined;
}
