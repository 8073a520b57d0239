/**
 * Images and audio a tool returns: `return toolImage(bytes, "image/png")`, or an array mixing such items
 * with strings, kept in order. Each item holds its bytes (copied, so the tool may reuse its buffer) and
 * its MIME type; the executor turns it into a result item (tool-result-items.ts) and refuses one over
 * `MAX_MEDIA_BYTES`. The items are recognised by a registered symbol, so that a tool that loads its own
 * copy of the package still returns items the runtime knows. An image declared PNG, JPEG, GIF or WebP
 * must begin as that type does (image-signature.ts): the provider would refuse the whole request.
 */
import { imageMismatch, SIGNATURE_BYTES } from "./image-signature.js";

/** The most bytes one image or audio item may hold (10 MiB), apart from the result's text cap. */
export const MAX_MEDIA_BYTES = 10 * 1024 * 1024;

const MEDIA = Symbol.for("sigloop.toolMedia");

export type MediaKind = "image" | "audio";

interface MediaItem<K extends MediaKind> {
  readonly [MEDIA]: K;
  readonly mimeType: string;
  readonly bytes: Uint8Array;
}

/** An image a tool returns; made by `toolImage`. */
export type ToolImage = MediaItem<"image">;
/** An audio clip a tool returns; made by `toolAudio`. */
export type ToolAudio = MediaItem<"audio">;
export type ToolMedia = ToolImage | ToolAudio;

/** What a tool may hand `toolImage` and `toolAudio`. */
export type MediaBytes = Uint8Array | ArrayBuffer;

/**
 * An image as a tool result: `bytes` (a Buffer, Uint8Array or ArrayBuffer, copied now) and its MIME type
 * (`image/png`, `image/jpeg`, …). Throws a TypeError for bytes of another kind, a MIME type that is not
 * `image/…`, or bytes that are not of the declared PNG, JPEG, GIF or WebP type: that is a bug in the tool.
 */
export function toolImage(bytes: MediaBytes, mimeType: string): ToolImage {
  return mediaItem("image", bytes, mimeType);
}

/** An audio clip as a tool result (`audio/wav`, `audio/mpeg`, …); the same rules as `toolImage`. */
export function toolAudio(bytes: MediaBytes, mimeType: string): ToolAudio {
  return mediaItem("audio", bytes, mimeType);
}

export function isToolMedia(value: unknown): value is ToolMedia {
  return typeof value === "object" && value !== null && MEDIA in value;
}

export function mediaKind(item: ToolMedia): MediaKind {
  return item[MEDIA];
}

/** `type/subtype`, as RFC 6838 restricts their characters; parameters (`; rate=16000`) may follow. */
const MIME_TYPE = /^([a-z0-9][a-z0-9!#$&^_.+-]*)\/[a-z0-9][a-z0-9!#$&^_.+-]*(\s*;.*)?$/i;

function mediaItem<K extends MediaKind>(kind: K, bytes: MediaBytes, mimeType: string): MediaItem<K> {
  const made = kind === "image" ? "toolImage" : "toolAudio";
  let copy: Uint8Array;
  if (bytes instanceof Uint8Array) copy = new Uint8Array(bytes);
  else if (bytes instanceof ArrayBuffer) copy = new Uint8Array(bytes.slice(0));
  else throw new TypeError(`${made}(bytes, mimeType) needs a Buffer, Uint8Array or ArrayBuffer as bytes, not ${describe(bytes)}.`);
  const match = typeof mimeType === "string" ? MIME_TYPE.exec(mimeType) : null;
  if (match === null || match[1]!.toLowerCase() !== kind) {
    throw new TypeError(`${made}(bytes, mimeType) needs an ${kind} MIME type such as "${kind === "image" ? "image/png" : "audio/wav"}", not ${JSON.stringify(mimeType) ?? String(mimeType)}.`);
  }
  if (kind === "image") checkImageBytes(copy, mimeType);
  return Object.freeze({ [MEDIA]: kind, mimeType, bytes: copy });
}

/**
 * Throws when `bytes` are not of the PNG, JPEG, GIF or WebP type declared. An image over
 * `MAX_MEDIA_BYTES` is not checked: it is refused for its size when returned, which is what to fix first.
 */
function checkImageBytes(bytes: Uint8Array, mimeType: string): void {
  if (bytes.byteLength > MAX_MEDIA_BYTES) return;
  const mismatch = imageMismatch(mimeType, bytes.subarray(0, SIGNATURE_BYTES));
  if (mismatch === undefined) return;
  const made = `toolImage(bytes, ${JSON.stringify(mimeType)}) needs the bytes of a ${mismatch.declared} image`;
  if (mismatch.actual !== undefined) {
    throw new TypeError(`${made}, not those of a ${mismatch.actual.name} one: pass "${mismatch.actual.mimeType}" as its MIME type.`);
  }
  throw new TypeError(`${made}, not ${leadingBytes(bytes)} (no PNG, JPEG, GIF or WebP signature): pass the image file's own bytes, or its own MIME type.`);
}

/** What `bytes` begin with, in hex, as one compares them with a signature. */
function leadingBytes(bytes: Uint8Array): string {
  if (bytes.byteLength === 0) return "0 bytes";
  const shown = [...bytes.subarray(0, 8)].map((byte) => byte.toString(16).padStart(2, "0")).join(" ");
  return `bytes that begin ${shown}${bytes.byteLength > 8 ? " …" : ""}`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return `a ${value.constructor?.name ?? "object"}`;
  return `a ${typeof value}`;
}
