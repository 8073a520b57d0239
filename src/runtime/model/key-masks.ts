/**
 * One mask for several keys (the agent masks both OPENAI_API_KEY and ANTHROPIC_API_KEY, whichever
 * provider it talks to): each key's own rule (key-mask.ts) applied in turn, also to streamed text.
 */
import { keyMask, mergeRuns, type KeyMask } from "./key-mask.js";

export function keysMask(keys: readonly string[]): KeyMask {
  const masks = [...new Set(keys.filter((key) => key !== ""))].map((key) => keyMask(key)).filter((mask) => mask.secret);
  const [only] = masks;
  if (masks.length <= 1) return only ?? keyMask("");
  return {
    secret: true,
    scrub: (text) => masks.reduce((scrubbed, mask) => mask.scrub(scrubbed), text),
    runs: (text) => mergeRuns(masks.flatMap((mask) => mask.runs(text))),
    stream(write) {
      // The last mask writes out; each earlier one writes into the next.
      const streams: Array<ReturnType<KeyMask["stream"]>> = [];
      let sink = write;
      for (const mask of [...masks].reverse()) {
        const stream = mask.stream(sink);
        streams.unshift(stream);
        sink = (text) => stream.write(text);
      }
      return {
        write: (text) => streams[0]?.write(text),
        flush: () => streams.forEach((stream) => stream.flush()),
      };
    },
  };
}
