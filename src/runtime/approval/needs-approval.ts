/**
 * Which tools run only with the user's approval. A local tool (a function of the project's own tools
 * folder, or a built-in) is the user's own code and says what it does: it needs approval only when tagged
 * `@destructive` (`destructiveHint: true`). A tool from elsewhere (an MCP server's) is trusted to say so
 * only in the safe direction: it needs approval unless it declares `readOnlyHint: true`.
 */
import type { ToolAnnotations } from "../../shared/schemas-file.js";
import type { ToolCall } from "../loop/messages.js";

/** `origin`: `local` for the schemas file's tools, `external` for a server's. */
export function needsApproval(annotations: ToolAnnotations | undefined, origin: "local" | "external"): boolean {
  if (origin === "local") return annotations?.destructiveHint === true;
  return annotations?.readOnlyHint !== true;
}

/** What the user (or a program's `approve`) decided about one call. */
export type ApprovalVerdict = { approved: true } | { approved: false; reason?: string };

/** What a call that needs approval brings to the one who decides. */
export interface ApprovalRequest {
  /** The call as it will run: `arguments` are the validated, repaired arguments as JSON. */
  call: ToolCall;
  annotations: ToolAnnotations;
  /** For the file tools: a unified diff of the change against the current file. */
  preview?: string;
}

/** The model reads this for a call that was not approved. */
export function notApprovedMessage(tool: string, reason: string | undefined): string {
  const given = reason?.trim() ?? "";
  return `The user did not approve this call to ${tool}, so it was not run.${given === "" ? "" : ` Reason: ${given}`}`;
}
