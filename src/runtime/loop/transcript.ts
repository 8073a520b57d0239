/**
 * The transcript: one JSON line per chat message, exactly the message the history holds (for Chat
 * Completions, what the API receives; provider parts and a result's status ride along, see messages.ts),
 * appended as soon as the message exists, one line per compaction (src/runtime/compaction/compaction-record.ts) and one
 * per approval asked and decided (src/runtime/approval/approval-record.ts). Each line is written with a single write call on a file opened for appending,
 * so a killed process loses at most the line in flight, and that line is at worst torn (cut short).
 */
import { closeSync, constants, writeSync } from "node:fs";
import { lastByte, NotRegularFileError, openRegularFile, readRegularFile } from "../workspace/regular-file.js";
import { applyCompaction, isCompactionRecord } from "../compaction/compaction-record.js";
import { isApprovalRecord, type ApprovalRecord } from "../approval/approval-record.js";
import type { MessageSink } from "./agent.js";
import type { ChatMessage } from "./messages.js";
import { isProviderPart, isToolResultStatus } from "./provider-parts.js";
import { isToolResultItem } from "./tool-result-items.js";
import { repairHistory } from "./repair-history.js";

export interface TranscriptWriter extends MessageSink {
  close(): void;
}

/**
 * Opens `file` for appending (creating it). If the file does not end with a newline (a torn last line),
 * a newline is written first so that the next message starts on a fresh line. `redact` sees each line
 * before it is written (the CLI masks the API key with it). Throws `NotRegularFileError` for a path that
 * exists and is not a regular file (a device or FIFO would swallow or block the writes).
 */
export function openTranscript(file: string, options: { redact?: (line: string) => string } = {}): TranscriptWriter {
  const redact = options.redact ?? ((line: string) => line);
  const fd = openRegularFile(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT);
  const last = lastByte(fd);
  if (last !== undefined && last !== 0x0a) writeFully(fd, "\n");
  let closed = false;
  return {
    append(message) {
      writeFully(fd, `${redact(JSON.stringify(message))}\n`);
    },
    recordCompaction(record) {
      writeFully(fd, `${redact(JSON.stringify(record))}\n`);
    },
    recordApproval(record) {
      writeFully(fd, `${redact(JSON.stringify(record))}\n`);
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}

/** One write call for the whole line; a regular file takes it whole, the loop only guards a short write. */
function writeFully(fd: number, text: string): void {
  let buffer = Buffer.from(text, "utf8");
  while (buffer.length > 0) {
    const written = writeSync(fd, buffer);
    buffer = buffer.subarray(written);
  }
}

export type TranscriptReading =
  /** `approvals`: the last approval record of each call, by call id (approval-record.ts). */
  | { ok: true; messages: ChatMessage[]; warnings: string[]; approvals: Map<string, ApprovalRecord> }
  | { ok: false; error: string };

/**
 * Reads a transcript to resume it. Lines that are not complete JSON (a write cut short by a crash) are
 * skipped with a warning; a compaction line is applied to the messages read so far, so the result is the
 * history as the loop held it after its last compaction; any other complete line that is not a chat
 * message is an error, since sending it would change the conversation. A leading byte-order mark is
 * ignored. The history is then repaired for a strict gateway (`repairHistory`), one warning per kind of
 * repair; the file itself is not rewritten.
 */
export function readTranscript(file: string): TranscriptReading {
  let text: string;
  try {
    text = readRegularFile(file);
  } catch (error) {
    if (error instanceof NotRegularFileError) return { ok: false, error: `cannot read transcript: ${error.message}` };
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, error: `cannot read transcript ${file}${code ? ` (${code})` : ""}` };
  }
  const messages: ChatMessage[] = [];
  const warnings: string[] = [];
  const approvals = new Map<string, ApprovalRecord>();
  if (text.startsWith(BYTE_ORDER_MARK)) {
    text = text.slice(BYTE_ORDER_MARK.length);
    warnings.push(`${file}: ignored the byte-order mark at its start`);
  }
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const lineNumber = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      warnings.push(`${file}:${lineNumber}: ignored an incomplete line (a write cut short, e.g. by a crash): ${shorten(line)}`);
      continue;
    }
    if (isApprovalRecord(value)) {
      approvals.set(value.approval.tool_call_id, value);
      continue;
    }
    if (isCompactionRecord(value)) {
      // The loop compacted the history it held: the repaired one it resumed (repairing is idempotent), plus what came after.
      const held = repairHistory(messages).messages;
      messages.length = 0;
      for (const message of held) messages.push(message);
      const problem = applyCompaction(messages, value, chatMessageProblem);
      if (problem !== undefined) return { ok: false, error: `${file}:${lineNumber}: ${problem}` };
      continue;
    }
    const problem = chatMessageProblem(value);
    if (problem !== undefined) {
      return { ok: false, error: `${file}:${lineNumber}: not a chat message: ${problem}` };
    }
    messages.push(value as ChatMessage);
  }
  const repaired = repairHistory(messages);
  warnings.push(...repaired.repairs.map((repair) => `${file}: repaired for a strict API: ${repair}`));
  return { ok: true, messages: repaired.messages, warnings, approvals };
}

const BYTE_ORDER_MARK = "\uFEFF";

function shorten(line: string): string {
  return line.length > 60 ? `${JSON.stringify(line.slice(0, 60))}…` : JSON.stringify(line);
}

function chatMessageProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "expected a JSON object";
  const message = value as Record<string, unknown>;
  switch (message.role) {
    case "system":
    case "user":
      return typeof message.content === "string" ? undefined : `a ${message.role} message needs string content`;
    case "tool":
      if (typeof message.tool_call_id !== "string") return "a tool message needs a string tool_call_id";
      if (message.status !== undefined && !isToolResultStatus(message.status)) return `unknown tool result status ${JSON.stringify(message.status)}`;
      if (message.items !== undefined && !(Array.isArray(message.items) && message.items.every(isToolResultItem))) {
        return "items must be an array of { type: \"text\", text } or { type: \"image\" or \"audio\", mimeType, data } objects";
      }
      return typeof message.content === "string" ? undefined : "a tool message needs string content";
    case "assistant":
      return assistantProblem(message);
    default:
      return `unknown role ${JSON.stringify(message.role)}`;
  }
}

function assistantProblem(message: Record<string, unknown>): string | undefined {
  if (message.parts !== undefined && !(Array.isArray(message.parts) && message.parts.every(isProviderPart))) {
    return "parts must be an array of { provider: \"anthropic\", block } or { provider: \"responses\", item } objects";
  }
  if (message.tool_calls === undefined) {
    return typeof message.content === "string" ? undefined : "an assistant message without tool_calls needs string content";
  }
  if (message.content !== null && typeof message.content !== "string") return "assistant content must be a string or null";
  if (!Array.isArray(message.tool_calls) || message.tool_calls.length === 0) return "tool_calls must be a non-empty array";
  const valid = message.tool_calls.every((call: unknown) => {
    if (typeof call !== "object" || call === null) return false;
    const { id, type, function: fn } = call as Record<string, unknown>;
    if (typeof id !== "string" || type !== "function" || typeof fn !== "object" || fn === null) return false;
    const { name, arguments: args } = fn as Record<string, unknown>;
    return typeof name === "string" && typeof args === "string";
  });
  return valid ? undefined : "each tool call needs an id, type \"function\" and a function name and string arguments";
}
