/**
 * A `tools/call` result as the text the model reads: the text items joined by line breaks;
 * `structuredContent` as JSON only when there is no text item (servers repeat it in a text item, as the
 * specification recommends); an image, audio or resource item as a one-line note
 * (`[image: image/png, 12345 bytes, not shown]`, the decoded size); nothing at all as `(no output)`.
 * `isError: true` is a failure whose message is that text, read as a local tool that threw. A result
 * with an image or audio item (base64 `data` and a `mimeType`) also gives its items in order, so that
 * the model is sent the image where its API takes one, as for a local tool's `toolImage`. An image of a
 * type those APIs take whose `data` is not base64, or whose bytes do not begin as that type's do (a JPEG
 * declared `image/png`), is a note instead: sent, it would make the provider refuse the request, and so
 * end the run (and every resume).
 */
import { imageMismatch } from "../execution/image-signature.js";
import { NO_OUTPUT } from "../execution/tool-messages.js";
import type { ToolResultItem } from "../loop/messages.js";
import { mediaNote, TOOL_RESULT_IMAGE_TYPES } from "../loop/tool-result-items.js";

export interface MappedResult {
  isError: boolean;
  text: string;
  items?: ToolResultItem[];
}

export function mapCallResult(result: Record<string, unknown>): MappedResult {
  const items = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const parts: ToolResultItem[] = [];
  let hasText = false;
  let hasMedia = false;
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (item.type === "text" && typeof item.text === "string") {
      hasText = true;
      parts.push({ type: "text", text: item.text });
    } else if ((item.type === "image" || item.type === "audio") && typeof item.data === "string" && typeof item.mimeType === "string") {
      const unfit = item.type === "image" ? unfitImage(item.mimeType, item.data) : undefined;
      if (unfit !== undefined) {
        parts.push({ type: "text", text: `[image: ${item.mimeType}, ${unfit}, not shown]` });
        continue;
      }
      hasMedia = true;
      parts.push({ type: item.type, mimeType: item.mimeType, data: item.data });
    } else {
      parts.push({ type: "text", text: noteFor(item) });
    }
  }
  if (!hasText && result.structuredContent !== undefined) parts.unshift({ type: "text", text: JSON.stringify(result.structuredContent) });
  const text = parts.length === 0 ? NO_OUTPUT : parts.map((part) => (part.type === "text" ? part.text : mediaNote(part))).join("\n");
  return { isError: result.isError === true, text, ...(hasMedia && result.isError !== true ? { items: parts } : {}) };
}

/** The note of an item the model is never sent: a medium without its data or type, a resource, an unknown kind. */
function noteFor(item: Record<string, unknown>): string {
  const type = typeof item.type === "string" ? item.type : "unknown";
  if (type === "image" || type === "audio") {
    return `[${type}: ${String(item.mimeType ?? "unknown type")}, ${base64Bytes(item.data)} bytes, not shown]`;
  }
  if (type === "resource" && isRecord(item.resource)) {
    const { uri, mimeType, text, blob } = item.resource;
    const size = typeof text === "string" ? `${text.length} characters` : `${base64Bytes(blob)} bytes`;
    return `[resource: ${String(uri)}${typeof mimeType === "string" ? `, ${mimeType}` : ""}, ${size}, not shown]`;
  }
  if (type === "resource_link") {
    return `[resource link: ${String(item.uri)}${typeof item.name === "string" ? ` (${item.name})` : ""}]`;
  }
  return `[${type} item, not shown]`;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Why an image of a type the providers take cannot be sent to them; undefined when it can, or is never sent. */
function unfitImage(mimeType: string, data: string): string | undefined {
  if (!TOOL_RESULT_IMAGE_TYPES.includes(mimeType)) return undefined;
  if (data.length % 4 !== 0 || !BASE64.test(data)) return "its data is not base64";
  // The first 16 characters are the first 12 bytes: enough for every signature, without decoding the rest.
  const mismatch = imageMismatch(mimeType, Buffer.from(data.slice(0, 16), "base64"));
  if (mismatch === undefined) return undefined;
  return `its bytes are not a ${mismatch.declared} image${mismatch.actual !== undefined ? ` but a ${mismatch.actual.name} one` : ""}`;
}

/** The decoded size of base64 text, without decoding it. */
function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const clean = data.replace(/[^A-Za-z0-9+/=_-]/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
