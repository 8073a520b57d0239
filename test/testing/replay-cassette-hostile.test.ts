/**
 * `replayCassette`'s `remainingSteps` and `assertAllPlayed()` under the ways a user's test goes wrong: a
 * session recorded with the agent's retries (a 5xx, a stalled stream) replays to the end; a request the
 * server refuses before the cassette could judge it is named; once `setScript` takes over, both judge that
 * script; the error's stack starts at the test's own call.
 */
import { request as httpRequest } from "node:http";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { replayCassette, startScriptedModel, type CassetteReplay } from "../../src/testing.js";
import { runCliInProcess, tempDir, writeFixtureSchemas } from "../cli/support.js";
import { SENTINEL_API_KEY } from "../support/sentinel-key.js";
import { ask, exchange, post, writeCassette } from "./cassettes.js";

/** What `assertAllPlayed()` threw, or `undefined`. */
function thrownBy(model: CassetteReplay): Error | undefined {
  try {
    model.assertAllPlayed();
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

let replay: CassetteReplay | undefined;
afterEach(async () => {
  await replay?.close();
  replay = undefined;
});

const session = [exchange("one", "1"), exchange("two", "2"), exchange("three", "3")];

describe("replayCassette, played back by the agent", () => {
  it("a session recorded through an SDK retry after a 500 and a stream the agent dropped for silence replays to the end, before and after close()", async () => {
    const schemas = writeFixtureSchemas(tempDir());
    const env = (model: { baseURL: string }) => ({ AGENT_MODEL: "scripted-model", NO_COLOR: "1", OPENAI_API_KEY: SENTINEL_API_KEY, OPENAI_BASE_URL: model.baseURL });
    const argv = ["--provider", "chat", "--schemas", schemas, "--idle-timeout", "300"];
    const cassette = path.join(tempDir(), "session.jsonl");
    const model = await startScriptedModel({
      script: [httpError500(), { content: "Echoing.", toolCalls: [{ id: "call_1", name: "echo", arguments: { text: "hi" } }] }, { fault: "stall" }, { content: "It said hi." }],
    });
    const recorded = await runCliInProcess([...argv, "--record", cassette, "echo hi"], env(model));
    await model.close();
    expect(recorded).toMatchObject({ code: 0, stdout: "It said hi.\n" });

    replay = await replayCassette(cassette);
    expect(replay.remainingSteps).toBe(4);
    const again = await runCliInProcess([...argv, "echo hi"], env(replay));
    expect(again).toMatchObject({ code: 0, stdout: "It said hi.\n" });
    // The retries are requests of their own: four requests, the two identical ones each played once.
    expect(replay.requests).toHaveLength(4);
    expect(replay.remainingSteps).toBe(0);
    expect(thrownBy(replay)).toBeUndefined();
    await replay.close();
    expect(thrownBy(replay)).toBeUndefined();
  });
});

function httpError500() {
  return { fault: "status", status: 500, body: { error: { message: "The server had an error", type: "server_error", param: null, code: null } } } as const;
}

describe("replayCassette, remainingSteps and assertAllPlayed", () => {
  it("a request refused before the cassette judged it (not JSON, an unknown endpoint) is named by its number", async () => {
    replay = await replayCassette(writeCassette(session));
    expect(await post(replay, "not json")).toBe(400);
    expect(thrownBy(replay)?.message).toBe(
      "cassette not played as recorded: request #1 was refused: the request body is not valid JSON; 3 of its 3 recorded exchanges were never played, the first #1 (POST /v1/chat/completions)",
    );
    await replay.close();

    replay = await replayCassette(writeCassette(session.slice(0, 1)));
    expect(await ask(replay, session[0]!)).toBe(200);
    expect((await fetch(`${replay.baseURL}/models`)).status).toBe(400);
    expect(replay.remainingSteps).toBe(0);
    expect(thrownBy(replay)?.message).toBe(
      "cassette not played as recorded: request #2 was refused: unknown endpoint GET /v1/models: only POST /v1/chat/completions, /v1/messages and /v1/responses are served",
    );
  });

  it("after setScript, assertAllPlayed judges that script as remainingSteps does: its steps left, a request it had no step for", async () => {
    replay = await replayCassette(writeCassette(session));
    expect(await ask(replay, session[0]!)).toBe(200);
    replay.setScript([{ content: "scripted" }]);
    expect(replay.remainingSteps).toBe(1);
    expect(thrownBy(replay)?.message).toBe("replay not played to the end: 1 of the 1 steps given to setScript were never used");

    expect(await ask(replay, session[1]!)).toBe(200);
    expect(replay.remainingSteps).toBe(0);
    expect(thrownBy(replay)).toBeUndefined();

    const response = await fetch(`${replay.baseURL}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(session[2]!.request.body) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe("scripted server: no script step left for request #3");
    expect(replay.remainingSteps).toBe(0);
    expect(thrownBy(replay)?.message).toBe("replay not played as scripted: scripted server: no script step left for request #3");
  });

  it("a function given to setScript answers every request with the server's own index; the replay then has no end to reach", async () => {
    replay = await replayCassette(writeCassette(session));
    expect(await ask(replay, session[0]!)).toBe(200);
    const indexes: number[] = [];
    replay.setScript((_request, index) => {
      indexes.push(index);
      return { content: "any" };
    });
    expect(await ask(replay, session[0]!)).toBe(200);
    expect(indexes).toEqual([1]);
    expect(replay.remainingSteps).toBe(Infinity);
    expect(thrownBy(replay)).toBeUndefined();
  });

  it("for any list given to setScript and any number of requests after it, remainingSteps is what is left and assertAllPlayed passes exactly when it was used up", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }), fc.nat({ max: 5 }), async (answers, asked) => {
        const played = await replayCassette(writeCassette(session));
        try {
          played.setScript(answers.map((content) => ({ content })));
          for (let i = 0; i < asked; i += 1) expect(await ask(played, session[0]!)).toBe(i < answers.length ? 200 : 400);
          expect(played.remainingSteps).toBe(Math.max(0, answers.length - asked));
          expect(thrownBy(played) === undefined).toBe(asked === answers.length);
        } finally {
          await played.close();
        }
      }),
      { numRuns: 15, seed: 4 },
    );
  });

  it("the error's stack starts at the test's call to assertAllPlayed, not inside the replay", async () => {
    replay = await replayCassette(writeCassette(session));
    const stack = thrownBy(replay)?.stack?.split("\n") ?? [];
    expect(stack[0]).toBe("Error: cassette not played to the end: 3 of its 3 recorded exchanges were never played, the first #1 (POST /v1/chat/completions); the agent made fewer requests than when the cassette was recorded");
    expect(stack[1]).toContain("replay-cassette-hostile.test.ts");
    expect(stack.join("\n")).not.toContain("src/testing/replay-cassette.ts");
  });

  it("a cassette of no exchanges is played when nothing asked, and names the first request that came anyway", async () => {
    replay = await replayCassette(writeCassette([]));
    expect(replay.remainingSteps).toBe(0);
    expect(thrownBy(replay)).toBeUndefined();
    expect(await ask(replay, session[0]!)).toBe(400);
    expect(thrownBy(replay)?.message).toBe("cassette not played as recorded: cassette mismatch: request #1 has no recorded exchange: the cassette holds 0");
  });

  it("a request whose body is still arriving is not counted; it is once its body has come and matched", async () => {
    replay = await replayCassette(writeCassette(session));
    const body = JSON.stringify(session[0]!.request.body);
    const answered = new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${replay!.baseURL}/chat/completions`, { method: "POST", headers: { "content-type": "application/json", "content-length": String(body.length) } }, (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      });
      request.on("error", reject);
      request.write(body.slice(0, 10));
      setTimeout(() => request.end(body.slice(10)), 100);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(replay.remainingSteps).toBe(3);
    expect(await answered).toBe(200);
    expect(replay.remainingSteps).toBe(2);
  });
});
