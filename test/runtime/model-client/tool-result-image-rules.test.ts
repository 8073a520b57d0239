/**
 * The scripted server refuses tool-result images the real APIs would refuse, so that a test passing
 * against it means the request would pass against them: Anthropic `tool_result` content blocks and
 * Responses `function_call_output` lists, their image types, base64 and bytes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anthropicViolations, ThinkingLedger } from "../../../src/scripted-server/anthropic-rules.js";
import { responsesViolations } from "../../../src/scripted-server/responses-rules.js";
import { PNG } from "../../fixtures/rich-results/tools/media.js";

const png = PNG.toString("base64");
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]).toString("base64");

const anthropic = (content: unknown[]) =>
  anthropicViolations(
    {
      model: "m",
      max_tokens: 100,
      messages: [
        { role: "user", content: "draw" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "chart", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content }] },
      ],
    },
    new ThinkingLedger(),
  );

const responses = (output: unknown[]) =>
  responsesViolations(
    {
      model: "m",
      input: [
        { type: "message", role: "user", content: "draw" },
        { type: "function_call", call_id: "c1", name: "chart", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output },
      ],
    },
    new Map(),
  );

const image = (mediaType: string, data: string) => ({ type: "image", source: { type: "base64", media_type: mediaType, data } });

describe("Anthropic tool_result content", () => {
  it("takes text and base64 images of the four types whose bytes match", () => {
    expect(anthropic([{ type: "text", text: "chart:" }, image("image/png", png), image("image/jpeg", jpeg)])).toEqual([]);
  });

  it("refuses another image type, bad base64, bytes of another type, empty text, audio and extra keys", () => {
    const at = "messages.2.content.0.tool_result.content";
    expect(anthropic([image("image/svg+xml", png)])).toEqual([`${at}.0.image.source.base64: Input should be 'image/png', 'image/jpeg', 'image/gif', 'image/webp'`]);
    expect(anthropic([image("image/png", "not base64!")])).toEqual([`${at}.0.image.source.base64: The image data is not valid base64`]);
    expect(anthropic([image("image/png", jpeg)])).toEqual([`${at}.0.image.source.base64: Image does not match the provided media type image/png`]);
    expect(anthropic([{ type: "text", text: "" }])).toEqual([`${at}.0: text content blocks must be non-empty`]);
    expect(anthropic([{ type: "audio", data: "" }])).toHaveLength(1);
    expect(anthropic([{ ...image("image/png", png), mimeType: "image/png" }])).toEqual([`${at}.0.image.mimeType: Extra inputs are not permitted`]);
  });
});

describe("Responses function_call_output lists", () => {
  it("take input_text and input_image with a base64 data URL of a real image", () => {
    expect(responses([{ type: "input_text", text: "chart:" }, { type: "input_image", image_url: `data:image/png;base64,${png}` }])).toEqual([]);
  });

  it("refuse audio, another image type, bytes that are not the type claimed, and extra keys", () => {
    expect(responses([{ type: "input_audio", data: "" }])).toEqual(["Invalid value: 'input_audio'. Supported values are: 'input_text', 'input_image', and 'input_file'."]);
    expect(responses([{ type: "input_image", image_url: `data:image/bmp;base64,${png}` }])).toHaveLength(1);
    expect(responses([{ type: "input_image", image_url: `data:image/png;base64,${jpeg}` }])).toHaveLength(1);
    expect(responses([{ type: "input_text", text: "x", mimeType: "text/plain" }])).toEqual(["Unknown parameter: 'input[2].output[0].mimeType'."]);
  });
});

it("an image is accepted exactly when its bytes start with the signature of its type, on both APIs", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 40 }), fc.boolean(), (bytes, signed) => {
      const data = Buffer.concat([signed ? PNG.subarray(0, 8) : Buffer.alloc(0), bytes]);
      const valid = data.length >= 8 && data.subarray(0, 8).equals(PNG.subarray(0, 8));
      const base64 = data.toString("base64");
      expect(anthropic([image("image/png", base64)]).length === 0).toBe(valid);
      expect(responses([{ type: "input_image", image_url: `data:image/png;base64,${base64}` }]).length === 0).toBe(valid);
    }),
  );
});
