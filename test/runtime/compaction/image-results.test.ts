/**
 * A tool result holding an image, in compaction: its size estimate counts the image as the tokens an API
 * bills for it, not as its base64 text (so one screenshot does not look like a whole context window), and
 * it can always be elided (the note takes the image's place).
 */
import { describe, expect, it } from "vitest";
import { estimateMessageTokens } from "../../../src/runtime/compaction/estimate-tokens.js";
import { elisionCandidates } from "../../../src/runtime/compaction/elide-tool-results.js";
import type { ChatMessage, ToolMessage } from "../../../src/runtime/loop/messages.js";

const data = Buffer.alloc(3_000_000, 1).toString("base64");
const note = "[image: image/png, 3000000 bytes, not shown]";
const withImage: ToolMessage = { role: "tool", tool_call_id: "c1", content: `chart\n${note}`, items: [{ type: "text", text: "chart" }, { type: "image", mimeType: "image/png", data }] };

describe("an image in a tool result, in compaction", () => {
  it("is estimated as 1,600 tokens, not as its 4 MB of base64", () => {
    const tokens = estimateMessageTokens(withImage);
    expect(tokens).toBeGreaterThan(1_600);
    expect(tokens).toBeLessThan(1_800);
  });

  it("is elided with its text, the note replacing both", () => {
    const history: ChatMessage[] = [
      { role: "user", content: "draw" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "chart", arguments: "{}" } }] },
      withImage,
      { role: "assistant", content: "here" },
      { role: "user", content: "again" },
    ];
    const candidates = elisionCandidates(history, history.at(-1));
    expect(candidates).toEqual([{ index: 2, message: { role: "tool", tool_call_id: "c1", content: `[result elided to fit the context window: chart({}) returned ${withImage.content.length} characters here. Call the tool again to see it.]` } }]);
  });
});
