/**
 * `replayCassette` tells a test how much of the cassette was played: `remainingSteps` counts the recorded
 * exchanges no request has matched yet, and `assertAllPlayed()` fails, naming what is left (and any
 * request that did not match), when the agent made fewer requests than were recorded.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { replayCassette, type CassetteReplay } from "../../src/testing.js";
import { ask, exchange, writeCassette } from "./cassettes.js";

let replay: CassetteReplay | undefined;
afterEach(async () => {
  await replay?.close();
  replay = undefined;
});

const session = [exchange("one", "1"), exchange("two", "2"), exchange("three", "3")];

describe("replayCassette", () => {
  it("counts the recorded exchanges not yet played in remainingSteps", async () => {
    replay = await replayCassette(writeCassette(session));
    expect(replay.remainingSteps).toBe(3);
    expect(await ask(replay, session[0]!)).toBe(200);
    expect(replay.remainingSteps).toBe(2);
    expect(await ask(replay, session[1]!)).toBe(200);
    expect(await ask(replay, session[2]!)).toBe(200);
    expect(replay.remainingSteps).toBe(0);
  });

  it("assertAllPlayed fails after an agent that stopped early, naming how many exchanges are left and the first one's request", async () => {
    replay = await replayCassette(writeCassette(session));
    await ask(replay, session[0]!);
    expect(() => replay!.assertAllPlayed()).toThrow(
      new Error("cassette not played to the end: 2 of its 3 recorded exchanges were never played, the first #2 (POST /v1/chat/completions); the agent made fewer requests than when the cassette was recorded"),
    );
    await ask(replay, session[1]!);
    await ask(replay, session[2]!);
    expect(() => replay!.assertAllPlayed()).not.toThrow();
  });

  it("assertAllPlayed fails on a request that did not match its exchange, and on one past the cassette's end, with the mismatch", async () => {
    replay = await replayCassette(writeCassette(session.slice(0, 1)));
    expect(await ask(replay, session[0]!)).toBe(200);
    expect(await ask(replay, session[1]!)).toBe(400);
    expect(replay.remainingSteps).toBe(0);
    expect(() => replay!.assertAllPlayed()).toThrow(new Error("cassette not played as recorded: cassette mismatch: request #2 has no recorded exchange: the cassette holds 1"));

    await replay.close();
    replay = await replayCassette(writeCassette(session));
    expect(await ask(replay, session[1]!)).toBe(400);
    expect(replay.remainingSteps).toBe(3);
    expect(() => replay!.assertAllPlayed()).toThrow(
      new Error(
        'cassette not played as recorded: cassette mismatch: request #1 differs from the recorded one at request.body.messages[0].content: recorded "one", got "two"; 3 of its 3 recorded exchanges were never played, the first #1 (POST /v1/chat/completions)',
      ),
    );
  });

  it("counts the steps of a script a test sets on the replay instead of the cassette's", async () => {
    replay = await replayCassette(writeCassette(session));
    replay.setScript([{ content: "scripted" }, { content: "again" }]);
    expect(replay.remainingSteps).toBe(2);
    expect(await ask(replay, session[2]!)).toBe(200);
    expect(replay.remainingSteps).toBe(1);
  });

  it("for any cassette and any number of its requests made in order, remainingSteps is what is left and assertAllPlayed passes exactly at the end", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 5 }), fc.nat({ max: 5 }), async (questions, asked) => {
        const exchanges = questions.map((question, index) => exchange(question, String(index)));
        const made = Math.min(asked, exchanges.length);
        const played = await replayCassette(writeCassette(exchanges));
        try {
          for (const recorded of exchanges.slice(0, made)) expect(await ask(played, recorded)).toBe(200);
          expect(played.remainingSteps).toBe(exchanges.length - made);
          if (made === exchanges.length) expect(() => played.assertAllPlayed()).not.toThrow();
          else expect(() => played.assertAllPlayed()).toThrow(`${exchanges.length - made} of its ${exchanges.length} recorded exchanges were never played, the first #${made + 1} (POST /v1/chat/completions)`);
        } finally {
          await played.close();
        }
      }),
      { numRuns: 15, seed: 3 },
    );
  });
});
