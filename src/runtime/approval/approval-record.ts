/**
 * An approval as the transcript records it, one JSON line of its own beside the message lines: `asked`
 * when a call that needs approval is put to the user (or the program's `approve`), then `approved` or
 * `denied` (with the reason given). A resume reads them so that it never asks again and tells the truth
 * about a call whose question was still open when the process died: it never started.
 *
 * `{"approval":{"tool_call_id":"call_1","tool":"write_file","state":"denied","reason":"not that file"}}`
 */
export type ApprovalState = "asked" | "approved" | "denied";

export interface ApprovalRecord {
  approval: {
    tool_call_id: string;
    tool: string;
    state: ApprovalState;
    reason?: string;
  };
}

export function isApprovalRecord(value: unknown): value is ApprovalRecord {
  if (typeof value !== "object" || value === null || !("approval" in value)) return false;
  const approval = (value as { approval: unknown }).approval;
  if (typeof approval !== "object" || approval === null) return false;
  const { tool_call_id: id, tool, state, reason } = approval as Record<string, unknown>;
  return typeof id === "string" && typeof tool === "string" && (state === "asked" || state === "approved" || state === "denied")
    && (reason === undefined || typeof reason === "string");
}
