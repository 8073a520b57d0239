/**
 * Repairs a history read from a transcript file into one the strictest gateway accepts. Each line of the
 * file was checked on its own; the history as a whole may still be broken: a corrupt line dropped an
 * assistant message and left its results orphaned, someone edited the file, another program wrote it.
 * Sent as it is, a strict gateway refuses the whole request (400), so the conversation could never go on.
 *
 * What is repaired, each counted so the user is told:
 * - fields the API does not take (`name`, `refusal`, `parsed`, `annotations`, a tool call's `index`…) are
 *   removed: a message keeps `role`, `content` and `tool_calls` / `tool_call_id` only (and the history's
 *   own `parts` / `status`, which the Chat Completions requester never sends);
 * - a tool call with an empty or repeated id is dropped (no result could be matched to it), a tool call
 *   without a name gets `missing_tool_name` (as the model client names one);
 * - a tool result that answers no call of the assistant message before it, or answers one twice, is
 *   dropped;
 * - results are put in call order; a call left without a result before the next message (or before a
 *   later call's result) is answered as interrupted.
 * The calls of the last assistant message left unanswered at the very end are left to the agent, which
 * answers them as interrupted and writes those answers to the transcript (the crash-mid-tool case).
 * The repair is deterministic and repairing a repaired history changes nothing, so a file that is only
 * ever appended to is repaired the same way on every resume.
 */
import { INTERRUPTED_TOOL_RESULT } from "./interrupted-tool-calls.js";
import type { AssistantMessage, ChatMessage, ToolCall, ToolMessage } from "./messages.js";

export interface RepairedHistory {
  messages: ChatMessage[];
  /** One line per kind of repair made, empty when the history was already valid. */
  repairs: string[];
}

/** Marks the name of a call that came without one (the model client's own name for it). */
const MISSING_TOOL_NAME = "missing_tool_name";
const LISTED_IDS = 5;

/** `messages`: each already a chat message in shape (role and content types checked line by line). */
export function repairHistory(messages: readonly ChatMessage[]): RepairedHistory {
  const notes = new RepairNotes();
  const out: ChatMessage[] = [];
  let block: OpenBlock | undefined;

  const closeBlock = (atEnd: boolean) => {
    if (block === undefined) return;
    out.push(...block.close(atEnd, notes));
    block = undefined;
  };

  for (const message of messages) {
    const clean = cleanMessage(message, notes);
    if (clean.role === "tool") {
      if (block === undefined) notes.id("orphan", clean.tool_call_id);
      else block.answer(clean, notes);
      continue;
    }
    closeBlock(false);
    out.push(clean);
    if (clean.role === "assistant" && "tool_calls" in clean) block = new OpenBlock(clean.tool_calls);
  }
  closeBlock(true);
  return { messages: out, repairs: notes.lines() };
}

/** The calls of one assistant message and the results that came for them. */
class OpenBlock {
  private readonly ids: Set<string>;
  private readonly results = new Map<string, ToolMessage>();
  private readonly arrival: string[] = [];

  constructor(private readonly calls: readonly ToolCall[]) {
    this.ids = new Set(calls.map((call) => call.id));
  }

  answer(result: ToolMessage, notes: RepairNotes): void {
    const id = result.tool_call_id;
    if (this.results.has(id)) notes.id("duplicate", id);
    else if (!this.ids.has(id)) notes.id("orphan", id);
    else {
      this.results.set(id, result);
      this.arrival.push(id);
    }
  }

  /** The results in call order; at the end of the history, calls after the last answered one stay open. */
  close(atEnd: boolean, notes: RepairNotes): ToolMessage[] {
    const inCallOrder = this.calls.filter((call) => this.results.has(call.id)).map((call) => call.id);
    if (inCallOrder.some((id, index) => id !== this.arrival[index])) notes.count("reordered");
    let answeredUpTo = this.calls.length;
    if (atEnd) while (answeredUpTo > 0 && !this.results.has(this.calls[answeredUpTo - 1]?.id ?? "")) answeredUpTo -= 1;
    const owed = this.calls.slice(0, answeredUpTo);
    return owed.map((call) => {
      const result = this.results.get(call.id);
      if (result !== undefined) return result;
      notes.id("interrupted", call.id);
      return { role: "tool", tool_call_id: call.id, content: INTERRUPTED_TOOL_RESULT };
    });
  }
}

/** The calls stripped to their fields, without empty or repeated ids, each named. */
function repairCalls(message: AssistantMessage & { tool_calls: readonly ToolCall[] }, notes: RepairNotes): AssistantMessage {
  const seen = new Set<string>();
  const calls: ToolCall[] = [];
  for (const raw of message.tool_calls) {
    const call = stripCall(raw, notes);
    if (call.id === "" || seen.has(call.id)) {
      notes.id("bad_id", call.id);
      continue;
    }
    seen.add(call.id);
    if (call.function.name === "") notes.count("unnamed");
    calls.push(call.function.name === "" ? { ...call, function: { ...call.function, name: MISSING_TOOL_NAME } } : call);
  }
  const [first, ...rest] = calls;
  if (first === undefined) return { role: "assistant", content: message.content ?? "" };
  return { role: "assistant", content: message.content, tool_calls: [first, ...rest] };
}

/** The message with only the fields the API takes (every other field noted by name), its calls repaired. */
function cleanMessage(message: ChatMessage, notes: RepairNotes): ChatMessage {
  const record = message as unknown as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!KEPT_FIELDS[message.role].includes(key)) notes.field(key);
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "tool":
      return {
        role: "tool",
        tool_call_id: message.tool_call_id,
        content: message.content,
        ...(message.status !== undefined ? { status: message.status } : {}),
        ...(message.items !== undefined ? { items: message.items } : {}),
      };
    case "assistant": {
      const repaired: AssistantMessage = "tool_calls" in message ? repairCalls(message, notes) : { role: "assistant", content: message.content };
      return message.parts !== undefined ? { ...repaired, parts: message.parts } : repaired;
    }
  }
}

function stripCall(call: ToolCall, notes: RepairNotes): ToolCall {
  for (const key of Object.keys(call)) if (!["id", "type", "function"].includes(key)) notes.field(`tool_calls[].${key}`);
  for (const key of Object.keys(call.function)) if (!["name", "arguments"].includes(key)) notes.field(`tool_calls[].function.${key}`);
  return { id: call.id, type: "function", function: { name: call.function.name, arguments: call.function.arguments } };
}

const KEPT_FIELDS: Record<ChatMessage["role"], readonly string[]> = {
  system: ["role", "content"],
  user: ["role", "content"],
  assistant: ["role", "content", "tool_calls", "parts"],
  tool: ["role", "tool_call_id", "content", "status", "items"],
};

type IdRepair = "orphan" | "duplicate" | "interrupted" | "bad_id";
type CountRepair = "reordered" | "unnamed";

class RepairNotes {
  private readonly fields = new Map<string, number>();
  private readonly ids = new Map<IdRepair, string[]>();
  private readonly counts = new Map<CountRepair, number>();

  field(name: string): void {
    this.fields.set(name, (this.fields.get(name) ?? 0) + 1);
  }

  id(kind: IdRepair, id: string): void {
    const list = this.ids.get(kind);
    if (list === undefined) this.ids.set(kind, [id]);
    else list.push(id);
  }

  count(kind: CountRepair): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }

  lines(): string[] {
    const lines: string[] = [];
    if (this.fields.size > 0) {
      const list = [...this.fields].map(([name, times]) => `${name} (${times}×)`).join(", ");
      lines.push(`removed fields the API does not take: ${list}`);
    }
    const ids = (kind: IdRepair, say: (n: number) => string) => {
      const list = this.ids.get(kind);
      if (list !== undefined) lines.push(`${say(list.length)}: ${idList(list)}`);
    };
    ids("bad_id", (n) => `dropped ${plural(n, "tool call")} with an empty or repeated id`);
    const unnamed = this.counts.get("unnamed");
    if (unnamed !== undefined) lines.push(`named ${plural(unnamed, "tool call")} without a name ${MISSING_TOOL_NAME}`);
    ids("orphan", (n) => `dropped ${plural(n, "tool result")} answering no tool call of the assistant message before it`);
    ids("duplicate", (n) => `dropped ${plural(n, "second result")} for a tool call already answered`);
    const reordered = this.counts.get("reordered");
    if (reordered !== undefined) lines.push(`put the tool results of ${plural(reordered, "assistant message")} back in call order`);
    ids("interrupted", (n) => `answered ${plural(n, "tool call")} left without a result as interrupted`);
    return lines;
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function idList(ids: readonly string[]): string {
  const shown = ids.slice(0, LISTED_IDS).map((id) => JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id));
  return ids.length > LISTED_IDS ? `${shown.join(", ")} and ${ids.length - LISTED_IDS} more` : shown.join(", ");
}
