/**
 * A value's wire form (what a dialect's requester sends for it), made once per object and reused on
 * every later request: a stateless dialect sends the whole history each time, and a run's history only
 * grows, so without it each request converted every earlier message again (O(n) work a turn). Keyed by
 * object identity, held weakly: a compacted history's new messages are made afresh, the replaced ones are
 * dropped with it.
 *
 * The form is made again when the object changed since: a message whose fields that a conversion reads
 * were reassigned, added or removed (a program that edits its history in place), a tool list whose
 * entries changed. What such a field holds (the tool calls' array, a result's items) is read when the
 * form is made.
 */
import type { ChatMessage } from "../loop/messages.js";

export class WireCache<K extends object, T> {
  private readonly entries = new WeakMap<K, { then: K; wire: T }>();

  constructor(
    private readonly make: (value: K) => T,
    private readonly unchanged: (value: K, then: K) => boolean,
    private readonly snapshot: (value: K) => K,
  ) {}

  wireOf(value: K): T {
    const entry = this.entries.get(value);
    if (entry !== undefined && this.unchanged(value, entry.then)) return entry.wire;
    const wire = this.make(value);
    this.entries.set(value, { then: this.snapshot(value), wire });
    return wire;
  }
}

/** Each message's wire form, made again when a field the dialects read is not what it was. */
export function messageWireCache<T>(make: (message: ChatMessage) => T): WireCache<ChatMessage, T> {
  return new WireCache(make, sameMessageFields, (message) => ({ ...message }));
}

/** A list's wire form (the tool definitions), made again when an entry was replaced, added or removed. */
export function listWireCache<E, T>(make: (list: readonly E[]) => T): WireCache<readonly E[], T> {
  return new WireCache(make, (list, then) => list.length === then.length && list.every((entry, index) => entry === then[index]), (list) => [...list]);
}

type AnyMessage = Partial<Record<"role" | "content" | "tool_call_id" | "status" | "items" | "parts" | "tool_calls", unknown>>;

function sameMessageFields(message: ChatMessage, then: ChatMessage): boolean {
  const now = message as AnyMessage;
  const was = then as AnyMessage;
  return (
    now.role === was.role &&
    now.content === was.content &&
    now.tool_call_id === was.tool_call_id &&
    now.status === was.status &&
    now.items === was.items &&
    now.parts === was.parts &&
    now.tool_calls === was.tool_calls
  );
}
