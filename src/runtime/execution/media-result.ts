/**
 * A tool's return value that holds images or audio (`toolImage`, `toolAudio`, alone or in an array with
 * strings) as result items, in the order returned: strings as they are, media as base64, anything else
 * rendered as any return value is. The text items share the result's cap in order: the one that passes
 * it is cut with the usual note and the text items after it are left out; media have their own limit
 * per item (`MAX_MEDIA_BYTES`) and are never cut.
 */
import type { ToolResultItem } from "../loop/messages.js";
import { capContent, renderReturnValue } from "./format-tool-result.js";
import { isToolMedia, MAX_MEDIA_BYTES, mediaKind } from "./tool-media.js";

export type MediaResult = { ok: true; items: ToolResultItem[] } | { ok: false; kind: string; bytes: number };

/**
 * The items of `value` after the validation notes `notes`, or `undefined` when it holds no medium (it is
 * then a result like any other). Throws what rendering a member throws.
 */
export function mediaResult(value: unknown, notes: readonly string[], maxChars: number, shared: boolean): MediaResult | undefined {
  const members: readonly unknown[] | undefined = isToolMedia(value) ? [value] : Array.isArray(value) && value.some(isToolMedia) ? value : undefined;
  if (members === undefined) return undefined;
  const items: ToolResultItem[] = notes.length > 0 ? [{ type: "text", text: notes.join("\n") }] : [];
  for (const member of members) {
    if (!isToolMedia(member)) {
      items.push({ type: "text", text: renderReturnValue(member) });
      continue;
    }
    const kind = mediaKind(member);
    if (member.bytes.byteLength > MAX_MEDIA_BYTES) return { ok: false, kind, bytes: member.bytes.byteLength };
    items.push({ type: kind, mimeType: member.mimeType, data: Buffer.from(member.bytes.buffer, member.bytes.byteOffset, member.bytes.byteLength).toString("base64") });
  }
  return { ok: true, items: capTextItems(items, maxChars, shared) };
}

/**
 * The items with their text within `maxChars` together, in order: the text item that passes it is cut
 * with the usual note, the text items after it are left out; media are kept.
 */
export function capTextItems(items: readonly ToolResultItem[], maxChars: number, shared: boolean): ToolResultItem[] {
  let room = maxChars;
  return items.flatMap((item): ToolResultItem[] => {
    if (item.type !== "text") return [item];
    if (room < 0) return [];
    const kept = capContent(item.text, room, shared);
    room = kept.length === item.text.length ? room - item.text.length : -1;
    return [{ type: "text", text: kept }];
  });
}
