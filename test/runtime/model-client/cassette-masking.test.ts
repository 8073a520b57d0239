/**
 * Masking a cassette's exchange (src/runtime/model/cassette-masking.ts), for any way a stream splits its
 * text: the text the masked deltas spell is the masked text of the whole reply, a body with nothing to
 * mask keeps its bytes, and every event stays JSON.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maskExchange } from "../../../src/runtime/model/cassette-masking.js";
import { keyMask } from "../../../src/runtime/model/key-mask.js";

const KEY = "sk-proj-Q7xZ9kLm2Pw4Rt8Yv1Bn6Hj3Kd5Fs0Ga";
const mask = keyMask(KEY);

/** A Chat Completions stream of `pieces`, one delta each, with `ending` after each line. */
function chatStream(pieces: readonly string[], ending: string): string {
  const events = pieces.map((content) => `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] })}${ending}${ending}`);
  return `${events.join("")}data: [DONE]${ending}${ending}`;
}

function spelled(body: string): string {
  return body
    .split(/\r\n|\r|\n/)
    .filter((line) => line.startsWith("data: {"))
    .map((line) => (JSON.parse(line.slice(6)) as { choices: [{ delta: { content: string } }] }).choices[0].delta.content)
    .join("");
}

function masked(body: string): string {
  return maskExchange({ request: { body: null }, response: { contentType: "text/event-stream", body } }, mask).response.body;
}

/** `text` cut at `cuts` (offsets, any order, repeats allowed). */
function cut(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((offset) => offset % (text.length + 1)))].sort((a, b) => a - b);
  return [0, ...at].map((start, index) => text.slice(start, at[index] ?? text.length));
}

describe("a streamed reply, split anywhere", () => {
  const words = fc.constantFrom("your key is ", KEY, " and ", KEY.slice(-8), "\u00e9\u{1F600}", "ok", "\n", "\"quoted\" \\ ");

  it("property: its masked deltas spell the masked text of the whole reply; each event is still JSON", () => {
    fc.assert(fc.property(fc.array(words, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), fc.constantFrom("\n", "\r\n"), (parts, cuts, ending) => {
      const text = parts.join("");
      const body = masked(chatStream(cut(text, cuts), ending));
      expect(spelled(body)).toBe(mask.scrub(text));
      expect(body.endsWith(`data: [DONE]${ending}${ending}`)).toBe(true);
    }));
  });

  it("property: with nothing to mask, the body is written byte for byte", () => {
    const plain = fc.constantFrom("hello ", "wor", "ld", "\u00e9", "{\"a\":1}", "\n");
    fc.assert(fc.property(fc.array(plain, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (parts, cuts) => {
      const body = chatStream(cut(parts.join(""), cuts), "\n").replaceAll('{"id"', '{ "id"');
      expect(masked(body)).toBe(body);
    }));
  });

  it("masks a key three characters an event as one *** in the event where it starts", () => {
    const body = masked(chatStream(cut(`is ${KEY} ok`, [3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45]), "\n"));
    expect(spelled(body)).toBe("is *** ok");
    expect(body).not.toContain(KEY.slice(-8));
  });
});

describe("a JSON body and a request's body", () => {
  it("mask a key in any string, and leave a body with nothing to mask as it was written", () => {
    const json = `{ "choices": [ { "message": { "content": "key ${KEY}" } } ] }`;
    const exchange = maskExchange({ request: { body: { messages: [{ content: `mine is ${KEY}` }] } }, response: { contentType: "application/json", body: json } }, mask);
    expect(exchange.request.body).toEqual({ messages: [{ content: "mine is ***" }] });
    expect(JSON.parse(exchange.response.body)).toEqual({ choices: [{ message: { content: "key ***" } }] });
    const plain = `{ "choices": [ { "message": { "content": "hello" } } ] }`;
    expect(maskExchange({ request: { body: null }, response: { contentType: "application/json", body: plain } }, mask).response.body).toBe(plain);
  });
});
