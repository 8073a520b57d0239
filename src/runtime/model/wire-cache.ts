/**
 * A value's wire form (JSON text a dialect's requester sends), made once per object and reused on every
 * later request: a stateless dialect sends the whole history each time, and a run's history only grows,
 * so without it each request converted and serialised every earlier message again (O(n) work a turn,
 * the SDKs' own serialisation included). Keyed by object identity, held weakly: a compacted history's new
 * messages are made afresh, the replaced ones are dropped with it.
 *
 * An object is taken as changed, and its form made again, when one of its own fields was reassigned,
 * added or removed since (a program that edits a message of its history in place); what a field holds
 * (the tool calls' array, a result's items) is read when the form is made.
 */
export class WireCache<K extends object, T> {
  private readonly entries = new WeakMap<K, { fields: Record<string, unknown>; size: number; wire: T }>();

  constructor(private readonly make: (value: K) => T) {}

  wireOf(value: K): T {
    const entry = this.entries.get(value);
    if (entry !== undefined && sameFields(value, entry.fields, entry.size)) return entry.wire;
    const wire = this.make(value);
    const fields = { ...value } as Record<string, unknown>;
    this.entries.set(value, { fields, size: Object.keys(fields).length, wire });
    return wire;
  }
}

function sameFields(value: object, fields: Record<string, unknown>, size: number): boolean {
  let count = 0;
  // for…in rather than Object.entries: no array per object per request.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (!Object.hasOwn(fields, key) || fields[key] !== (value as Record<string, unknown>)[key]) return false;
    count += 1;
  }
  return count === size;
}
