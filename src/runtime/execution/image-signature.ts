/**
 * Whether an image's bytes begin as its declared type's do, for the types the providers take in tool
 * results (PNG, JPEG, GIF, WebP). Anthropic's API checks an image's bytes against its declared type and
 * refuses the whole request when they differ, which would end the run (and every resume), so both a local
 * tool's `toolImage` and an MCP server's image item are checked before anything is sent. Only the first
 * `SIGNATURE_BYTES` are looked at; a type outside those four is never checked (it is never sent as an image).
 */

/** How many leading bytes every signature below fits in. */
export const SIGNATURE_BYTES = 12;

interface ImageFormat {
  mimeType: string;
  name: string;
  matches(start: Uint8Array): boolean;
}

/** The declared format of an image whose bytes are not of it, and the format they are of, if any. */
export interface ImageMismatch {
  declared: string;
  actual?: { name: string; mimeType: string };
}

function startsWith(bytes: Uint8Array, signature: string, at = 0): boolean {
  if (bytes.length < at + signature.length) return false;
  for (let i = 0; i < signature.length; i++) if (bytes[at + i] !== signature.charCodeAt(i)) return false;
  return true;
}

const IMAGE_FORMATS: readonly ImageFormat[] = [
  { mimeType: "image/png", name: "PNG", matches: (start) => startsWith(start, "\x89PNG\r\n\x1a\n") },
  { mimeType: "image/jpeg", name: "JPEG", matches: (start) => startsWith(start, "\xff\xd8\xff") },
  { mimeType: "image/gif", name: "GIF", matches: (start) => startsWith(start, "GIF87a") || startsWith(start, "GIF89a") },
  { mimeType: "image/webp", name: "WebP", matches: (start) => startsWith(start, "RIFF") && startsWith(start, "WEBP", 8) },
];

/**
 * How `start` (an image's first bytes, at least `SIGNATURE_BYTES` of them when it has that many) differs
 * from the signature of `mimeType`; undefined when it matches or `mimeType` is none of the four checked.
 */
export function imageMismatch(mimeType: string, start: Uint8Array): ImageMismatch | undefined {
  const declared = IMAGE_FORMATS.find((format) => format.mimeType === mimeType);
  if (declared === undefined || declared.matches(start)) return undefined;
  const actual = IMAGE_FORMATS.find((format) => format.matches(start));
  return { declared: declared.name, ...(actual !== undefined ? { actual: { name: actual.name, mimeType: actual.mimeType } } : {}) };
}
