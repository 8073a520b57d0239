/**
 * What the real APIs check of an image sent as base64: that it is base64, and that its bytes are an image
 * of the type it claims (PNG, JPEG, GIF or WebP, by their signatures), the four types both Anthropic and
 * the Responses API take.
 */

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const SIGNATURES: Record<string, (bytes: Buffer) => boolean> = {
  "image/png": (bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  "image/jpeg": (bytes) => bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])),
  "image/gif": (bytes) => bytes.subarray(0, 4).toString("latin1") === "GIF8",
  "image/webp": (bytes) => bytes.subarray(0, 4).toString("latin1") === "RIFF" && bytes.subarray(8, 12).toString("latin1") === "WEBP",
};

export const IMAGE_MEDIA_TYPES = Object.keys(SIGNATURES);

/** `undefined` for a well-formed image of `mediaType`, else what is wrong in the APIs' words. */
export function imageDataProblem(mediaType: string, data: unknown): string | undefined {
  const matches = SIGNATURES[mediaType];
  if (matches === undefined) return `Input should be ${IMAGE_MEDIA_TYPES.map((type) => `'${type}'`).join(", ")}`;
  if (typeof data !== "string" || data === "" || !BASE64.test(data)) return "The image data is not valid base64";
  return matches(Buffer.from(data, "base64")) ? undefined : `Image does not match the provided media type ${mediaType}`;
}
