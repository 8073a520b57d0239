import type { ApprovalRecord } from "../approval/approval-record.js";
import { notApprovedMessage } from "../approval/needs-approval.js";
import type { ChatMessage, ToolMessage } from "./messages.js";

export const INTERRUPTED_TOOL_RESULT =
  "Interrupted: the agent was stopped while this tool call was pending, so it has no result. It may or may not have run; check its effects before calling it again.";

export const NOT_RUN_AWAITING_APPROVAL_RESULT =
  "Not run: the agent was stopped while this call waited for the user's approval, so it never started. Call it again if it is still needed.";

/**
 * The tool results a history still owes. A process killed while tools ran leaves the last assistant
 * message's calls partly or wholly unanswered; a strict gateway refuses such a history, so each missing
 * call gets an honest "interrupted" result, in call order, after the results that exist.
 *
 * Only the last assistant message with tool calls is considered: results are written in call order right
 * after it, so anything earlier was complete when the next request was made.
 *
 * `approvals` holds each call's last approval record: a call still waiting for approval, or refused, was
 * certainly not run, and its result says so.
 */
export function interruptedToolResults(history: readonly ChatMessage[], approvals: ReadonlyMap<string, ApprovalRecord> = new Map()): ToolMessage[] {
  let index = history.length - 1;
  while (index >= 0 && history[index]?.role === "tool") index -= 1;
  const last = history[index];
  if (last === undefined || last.role !== "assistant" || !("tool_calls" in last)) return [];
  const answered = new Set(
    history.slice(index + 1).flatMap((message) => (message.role === "tool" ? [message.tool_call_id] : [])),
  );
  return last.tool_calls
    .filter((call) => !answered.has(call.id))
    .map((call) => ({ role: "tool", tool_call_id: call.id, content: owedResult(approvals.get(call.id)) }));
}

function owedResult(record: ApprovalRecord | undefined): string {
  switch (record?.approval.state) {
    case "asked":
      return NOT_RUN_AWAITING_APPROVAL_RESULT;
    case "denied":
      return notApprovedMessage(record.approval.tool, record.approval.reason);
    default:
      return INTERRUPTED_TOOL_RESULT;
  }
}
