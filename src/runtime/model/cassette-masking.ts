/**
 * Keys masked in a cassette's exchange (docs/testing.md), inside the structure rather than in its JSON
 * text: every string of the request's body, and of the response's JSON body or of each event's JSON
 * data, is masked as a whole (a key holding `"` or `\` is escaped in JSON text, where a search of the
 * text would miss it). A streamed reply puts its text together from many events, a few characters
 * each, so the text the deltas of a stream spell is masked as one: a key the model echoes is masked
 * even when no event holds a whole piece of it. A body with nothing to mask keeps its bytes exactly.
 */
import { MASK, type KeyMask } from "./key-mask.js";

/** What masking reads of a cassette exchange (cassette.ts's `CassetteExchange` has these and more). */
export interface MaskableExchange {
  request: { body: unknown };
  response: { contentType: string; body: string };
}

/**
 * The fields a stream's deltas come in: Chat Completions' `content`, `refusal` and a tool call's
 * `arguments`; Anthropic's `text`, `partial_json` and `thinking`; the Responses API's `delta`.
 */
const DELTA_FIELDS: ReadonlySet<string> = new Set(["content", "refusal", "arguments", "text", "partial_json", "thinking", "delta"]);

export function maskExchange<Exchange extends MaskableExchange>(exchange: Exchange, mask: KeyMask): Exchange {
  if (!mask.secret) return exchange;
  const { request, response } = exchange;
  return {
    ...exchange,
    request: { ...request, body: maskStrings(request.body, mask).value },
    response: { ...response, body: maskBody(response.body, response.contentType, mask) },
  };
}

function maskBody(body: string, contentType: string, mask: KeyMask): string {
  if (contentType === "text/event-stream") return maskEventStream(body, mask);
  if (contentType === "application/json") return maskJsonText(body, mask) ?? mask.scrub(body);
  return mask.scrub(body);
}

/** `text` with its strings masked, written again only if one changed; `undefined` when it is not JSON. */
function maskJsonText(text: string, mask: KeyMask): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const masked = maskStrings(parsed, mask);
  return masked.changed ? JSON.stringify(masked.value) : text;
}

/** A copy of `value` with every string masked, and whether any changed. */
function maskStrings(value: unknown, mask: KeyMask): { value: unknown; changed: boolean } {
  let changed = false;
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") {
      const scrubbed = mask.scrub(node);
      if (scrubbed !== node) changed = true;
      return scrubbed;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node === "object" && node !== null) return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item)]));
    return node;
  };
  const masked = walk(value);
  return { value: masked, changed };
}

/** One `data:` line of an event stream whose value is JSON, as parsed, and whether it must be written again. */
interface DataLine {
  value: unknown;
  changed: boolean;
}

/** One place a delta's text sits: the object holding it and its field. */
interface DeltaSlot {
  holder: Record<string, unknown>;
  field: string;
  line: DataLine;
}

function maskEventStream(body: string, mask: KeyMask): string {
  // Lines with their endings (LF, CRLF or CR alone), so that what is not changed is written as it came.
  const lines = body.match(/[^\r\n]*(?:\r\n|\r|\n|$)/g) ?? [];
  const parsed = new Map<number, DataLine>();
  const slots: DeltaSlot[] = [];
  const out = lines.map((line, index) => {
    const data = /^data: ?(.*?)(\r\n|\r|\n)?$/s.exec(line);
    if (data === null) return mask.scrub(line);
    let value: unknown;
    try {
      value = JSON.parse(data[1] ?? "");
    } catch {
      return mask.scrub(line);
    }
    const entry: DataLine = { value, changed: false };
    parsed.set(index, entry);
    collectDeltas(value, entry, slots);
    return line;
  });
  // The deltas first, as the text they spell: masked one by one first, a key split over them would be masked only in part.
  maskAcrossDeltas(slots, mask);
  for (const [index, entry] of parsed) {
    const masked = maskStrings(entry.value, mask);
    entry.value = masked.value;
    if (!entry.changed && !masked.changed) continue;
    const ending = /(\r\n|\r|\n)$/.exec(lines[index] ?? "")?.[1] ?? "";
    out[index] = `data: ${JSON.stringify(entry.value)}${ending}`;
  }
  return out.join("");
}

function collectDeltas(node: unknown, line: DataLine, slots: DeltaSlot[]): void {
  if (Array.isArray(node)) {
    for (const item of node) collectDeltas(item, line, slots);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const holder = node as Record<string, unknown>;
  for (const [field, item] of Object.entries(holder)) {
    if (typeof item === "string" && DELTA_FIELDS.has(field)) slots.push({ holder, field, line });
    else collectDeltas(item, line, slots);
  }
}

/**
 * Masks the runs of the text all deltas spell together: each run becomes one `***` in the delta it
 * starts in, and its characters in the deltas after that are left out, so the stream still spells the
 * text the agent printed, masked the same way.
 */
function maskAcrossDeltas(slots: readonly DeltaSlot[], mask: KeyMask): void {
  const texts = slots.map(({ holder, field }) => holder[field] as string);
  const runs = mask.runs(texts.join(""));
  if (runs.length === 0) return;
  let offset = 0;
  for (const [index, slot] of slots.entries()) {
    const text = texts[index]!;
    const start = offset;
    const end = offset + text.length;
    offset = end;
    let masked = "";
    let from = start;
    for (const [runStart, runEnd] of runs) {
      if (runEnd <= start || runStart >= end) continue;
      masked += text.slice(from - start, Math.max(runStart, start) - start);
      if (runStart >= start) masked += MASK;
      from = Math.min(runEnd, end);
    }
    masked += text.slice(from - start);
    if (masked === text) continue;
    slot.holder[slot.field] = masked;
    slot.line.changed = true;
  }
}
