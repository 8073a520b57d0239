/**
 * A static bound on how much work Ajv can do per character of arguments for one schema: the largest
 * number of schema applications (weighted by what each costs: its `required`, `enum`, `const`, the
 * properties an `additionalProperties` check compares each key with, the subtree a `uniqueItems` above it
 * canonicalizes) that can fall on one value of any argument. Validation with `allErrors` tries every
 * branch of every union, so a union reached twice at one value (`anyOf` branches that both lead through
 * `$ref` back to it) doubles the work at each level of the argument: 190 characters can then take
 * minutes. Such a schema, and one whose bound passes `MAX_VALIDATION_COST`, gets `Infinity`.
 *
 * The bound is found by walking the schema the way Ajv walks an argument: the set of schemas applied at
 * one value (with how many times each is reached), then, for each kind of child the value can have (a
 * property of a given name, another key, an array position), the set applied at that child; until no new
 * set appears. A recursive type whose recursion goes through one path per level (a tree, a JSON value)
 * yields a few sets and a small bound; one whose recursion multiplies keeps yielding bigger sets and is
 * stopped by the caps below. Every cap errs towards `Infinity`, which is safe: such a schema is still
 * validated, only where it can be stopped (`stoppable-validation.ts`).
 */
import type { JsonSchema, JsonValue } from "../../shared/schemas-file.js";

/** Past this many weighted schema applications on one value, a schema counts as unbounded. */
export const MAX_VALIDATION_COST = 10_000;
/** The analysis's own budget: distinct sets of schemas, and schema applications unfolded in all. */
const MAX_SETS = 2_000;
const MAX_STEPS = 200_000;

type Node = { [keyword: string]: JsonValue };
/** Schemas applied at one value, each with the number of ways it is reached. */
type Applied = Map<Node, number>;

/** Keywords whose schemas apply to the same value (no descent into the argument). */
const SAME_VALUE_LISTS = ["anyOf", "oneOf", "allOf"] as const;
const SAME_VALUE_ONES = ["not", "if", "then", "else"] as const;
const SAME_VALUE_MAPS = ["dependencies", "dependentSchemas"] as const;

class Unbounded extends Error {}

/** The schema's weighted applications per argument character, or `Infinity` (see the module comment). */
export function validationCost(root: JsonSchema): number {
  try {
    if (movesScope(root)) return Infinity;
    return new CostWalk(root).run();
  } catch (error) {
    // A schema nested deeper than the stack allows is not one gen writes.
    if (error instanceof Unbounded || error instanceof RangeError) return Infinity;
    throw error;
  }
}

class CostWalk {
  private steps = 0;
  private readonly ids = new Map<Node, number>();

  constructor(private readonly root: JsonSchema) {}

  run(): number {
    const seen = new Set<string>();
    // `canonicalizing`: the `uniqueItems` above a value that each turn it into canonical JSON once;
    // `charge`: what checking its key cost the parent.
    const pending: { entries: Applied; canonicalizing: number; charge: number }[] = [{ entries: new Map([[this.root, 1]]), canonicalizing: 0, charge: 0 }];
    let worst = 0;
    while (pending.length > 0) {
      const { entries, canonicalizing, charge } = pending.pop()!;
      const key = `${canonicalizing}|${charge}|${[...entries].map(([node, count]) => `${this.idOf(node)}*${count}`).sort().join(",")}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (seen.size > MAX_SETS) throw new Unbounded();
      const applied = this.closure(entries);
      let cost = canonicalizing + charge;
      let below = canonicalizing;
      for (const [node, count] of applied) {
        cost += count * this.weightOf(node);
        if (node.uniqueItems === true) below += count;
      }
      worst = Math.max(worst, cost);
      if (worst > MAX_VALIDATION_COST) throw new Unbounded();
      for (const child of this.children(applied)) {
        if (child.entries.size > 0) pending.push({ entries: child.entries, canonicalizing: below, charge: child.keyCost });
      }
    }
    return worst;
  }

  private readonly weights = new Map<Node, number>();

  private weightOf(node: Node): number {
    let weight = this.weights.get(node);
    if (weight === undefined) {
      weight = weightOf(node);
      this.weights.set(node, weight);
    }
    return weight;
  }

  private idOf(node: Node): number {
    let id = this.ids.get(node);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(node, id);
    }
    return id;
  }

  /** Every schema applied at a value, from those entered there, through unions, conditions and `$ref`. */
  private closure(entries: Applied): Applied {
    const applied: Applied = new Map();
    const onPath = new Set<Node>();
    const visit = (node: Node, count: number): void => {
      // A loop that never descends into the argument: Ajv recurses until the stack overflows.
      if (onPath.has(node) || ++this.steps > MAX_STEPS) throw new Unbounded();
      const total = (applied.get(node) ?? 0) + count;
      if (total > MAX_VALIDATION_COST) throw new Unbounded();
      applied.set(node, total);
      onPath.add(node);
      for (const next of this.sameValue(node)) visit(next, count);
      onPath.delete(node);
    };
    for (const [node, count] of entries) visit(node, count);
    return applied;
  }

  private sameValue(node: Node): Node[] {
    const found: Node[] = [];
    for (const keyword of SAME_VALUE_LISTS) pushSchemas(found, node[keyword]);
    for (const keyword of SAME_VALUE_ONES) pushSchemas(found, node[keyword]);
    for (const keyword of SAME_VALUE_MAPS) pushSchemas(found, objectValues(node[keyword]));
    for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef"]) {
      const ref = node[keyword];
      if (typeof ref === "string") found.push(this.resolve(ref));
    }
    return found;
  }

  /** A local JSON pointer; anything else (an `$id` elsewhere, another file) is not followed here. */
  private resolve(ref: string): Node {
    if (ref === "#") return this.root;
    if (!ref.startsWith("#/")) throw new Unbounded();
    let target: JsonValue = this.root;
    for (const raw of ref.slice(2).split("/")) {
      const segment = decodePointerSegment(raw);
      const next: JsonValue | undefined = Array.isArray(target)
        ? target[Number(segment)]
        : isNode(target) && Object.hasOwn(target, segment) ? target[segment] : undefined;
      if (next === undefined) throw new Unbounded();
      target = next;
    }
    if (!isNode(target)) throw new Unbounded();
    return target;
  }

  /**
   * The schemas entered at each kind of child a value can have: each property name some applied schema
   * names, any other key, each tuple position, any other position. `keyCost` is what checking one key
   * against `additionalProperties` costs the parent (it compares the key with every listed property).
   */
  private children(applied: Applied): { entries: Applied; keyCost: number }[] {
    const names = new Set<string>();
    let positions = 0;
    let keyCost = 0;
    for (const [node, count] of applied) {
      const properties = node.properties;
      if (isNode(properties)) for (const name of Object.keys(properties)) names.add(name);
      for (const keyword of ["items", "prefixItems"]) {
        const tuple = node[keyword];
        if (Array.isArray(tuple)) positions = Math.max(positions, tuple.length);
      }
      if (node.additionalProperties !== undefined || node.patternProperties !== undefined || node.unevaluatedProperties !== undefined) {
        keyCost += count * (1 + (isNode(properties) ? Object.keys(properties).length : 0) + (isNode(node.patternProperties) ? Object.keys(node.patternProperties).length : 0));
      }
    }
    // The walk's own work stays bounded too, however wide the schema.
    this.steps += (names.size + positions + 2) * applied.size;
    if (this.steps > MAX_STEPS) throw new Unbounded();
    const children: { entries: Applied; keyCost: number }[] = [];
    for (const name of names) children.push({ entries: this.atKey(applied, name), keyCost });
    children.push({ entries: this.atKey(applied, undefined), keyCost });
    for (let position = 0; position < positions; position++) children.push({ entries: this.atPosition(applied, position), keyCost: 0 });
    children.push({ entries: this.atPosition(applied, undefined), keyCost: 0 });
    return children;
  }

  /** At the property `name`, or at a key no applied schema names (`undefined`). */
  private atKey(applied: Applied, name: string | undefined): Applied {
    const entries: Applied = new Map();
    for (const [node, count] of applied) {
      const properties = isNode(node.properties) ? node.properties : {};
      const listed = name !== undefined && Object.hasOwn(properties, name);
      if (listed) addSchema(entries, properties[name], count);
      // Patterns are not matched here: counting every pattern at every key only overestimates.
      for (const schema of objectValues(node.patternProperties)) addSchema(entries, schema, count);
      if (!listed) addSchema(entries, node.additionalProperties, count);
      addSchema(entries, node.unevaluatedProperties, count);
      // The key itself, as a string.
      addSchema(entries, node.propertyNames, count);
    }
    return entries;
  }

  /** At a tuple position, or past every tuple (`undefined`). */
  private atPosition(applied: Applied, position: number | undefined): Applied {
    const entries: Applied = new Map();
    for (const [node, count] of applied) {
      const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined;
      const inPrefix = prefix !== undefined && position !== undefined && position < prefix.length;
      if (inPrefix) addSchema(entries, prefix[position], count);
      else if (prefix !== undefined) addSchema(entries, Array.isArray(node.items) ? node.additionalItems : node.items, count);
      else addSchema(entries, node.items, count);
      addSchema(entries, node.contains, count);
      addSchema(entries, node.unevaluatedItems, count);
    }
    return entries;
  }
}

/** What one application of a schema costs beyond visiting it: lists it checks the value against. */
function weightOf(node: Node): number {
  let weight = 1;
  if (Array.isArray(node.required)) weight += node.required.length;
  // A scalar is compared at once; an object or array deeply, at most as far as the value goes.
  if (Array.isArray(node.enum)) for (const entry of node.enum) weight += equalityCost(entry);
  if (node.const !== undefined) weight += equalityCost(node.const);
  return weight;
}

function equalityCost(value: JsonValue): number {
  return typeof value === "object" && value !== null ? JSON.stringify(value).length : 1;
}

function decodePointerSegment(raw: string): string {
  try {
    return decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
  } catch {
    throw new Unbounded();
  }
}

/**
 * Whether a schema below the root sets a base or an anchor that a `$ref` may resolve against: the walk
 * resolves every `$ref` from the root, so such a schema is not walked at all.
 */
function movesScope(root: JsonSchema): boolean {
  const pending: JsonValue[] = Object.values(root);
  while (pending.length > 0) {
    const value = pending.pop()!;
    if (Array.isArray(value)) pending.push(...value);
    else if (isNode(value)) {
      if (SCOPE_KEYWORDS.some((keyword) => typeof value[keyword] === "string")) return true;
      pending.push(...Object.values(value));
    }
  }
  return false;
}

const SCOPE_KEYWORDS = ["$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor"];

function isNode(value: JsonValue | undefined): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function objectValues(value: JsonValue | undefined): JsonValue[] {
  return isNode(value) ? Object.values(value) : [];
}

function pushSchemas(found: Node[], value: JsonValue | JsonValue[] | undefined): void {
  if (isNode(value)) found.push(value);
  else if (Array.isArray(value)) for (const item of value) if (isNode(item)) found.push(item);
}

function addSchema(entries: Applied, schema: JsonValue | undefined, count: number): void {
  if (!isNode(schema)) return;
  const total = (entries.get(schema) ?? 0) + count;
  if (total > MAX_VALIDATION_COST) throw new Unbounded();
  entries.set(schema, total);
}
