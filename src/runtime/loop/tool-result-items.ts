/**
 * Tool results that hold images or audio (messages.ts's `ToolResultItem`): their text form, where a
 * medium is the one-line note `[image: image/png, 12345 bytes, not shown]`, and the items a provider is
 * sent, where each medium it does not take in a tool result is that note instead.
 */
import type { ToolResultItem } from "./messages.js";

export type MediaItem = Exclude<ToolResultItem, { type: "text" }>;

/**
 * The image types both Anthropic (`tool_result` image blocks) and the Responses API (`input_image` in a
 * `function_call_output`) take; neither takes audio in a tool result, nor Chat Completions anything.
 */
export const TOOL_RESULT_IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** The bytes a base64 `data` string stands for. */
export function mediaByteLength(data: string): number {
  return Buffer.byteLength(data, "base64");
}

/** The note standing for a medium the reader is not shown. */
export function mediaNote(item: MediaItem): string {
  return `[${item.type}: ${item.mimeType}, ${mediaByteLength(item.data)} bytes, not shown]`;
}

/** The items as one text, one line apart: what Chat Completions is sent. */
export function itemsAsText(items: readonly ToolResultItem[]): string {
  return items.map((item) => (item.type === "text" ? item.text : mediaNote(item))).join("\n");
}

/**
 * The items for a provider that takes the media `takes` accepts: the others become notes. `undefined`
 * when no medium is left, so the message holds its text alone (the same bytes as a text result).
 */
export function itemsForProvider(items: readonly ToolResultItem[], takes: (item: MediaItem) => boolean): ToolResultItem[] | undefined {
  let kept = false;
  const sent = items.map((item): ToolResultItem => {
    if (item.type === "text") return item;
    if (takes(item)) {
      kept = true;
      return item;
    }
    return { type: "text", text: mediaNote(item) };
  });
  return kept ? sent : undefined;
}

/** Whether an image of this type may go to Anthropic or the Responses API in a tool result. */
export function isToolResultImage(item: MediaItem): boolean {
  return item.type === "image" && TOOL_RESULT_IMAGE_TYPES.includes(item.mimeType);
}

/** Whether a transcript line's item is one (a resumed history is sent as it is read). */
export function isToolResultItem(value: unknown): value is ToolResultItem {
  if (typeof value !== "object" || value === null) return false;
  const item = value as Record<string, unknown>;
  if (item.type === "text") return typeof item.text === "string";
  return (item.type === "image" || item.type === "audio") && typeof item.mimeType === "string" && typeof item.data === "string";
}
