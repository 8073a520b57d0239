/**
 * `--record FILE` and `replayCassette`: a session recorded against a model (here the scripted one, in
 * each dialect) is replayed offline to the same result; the cassette holds no key and no header; a
 * request that differs from the recorded one fails the run with the first difference.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { replayCassette, startScriptedModel } from "../../src/testing.js";
import { runCliInProcess, tempDir, writeFixtureSchemas } from "./support.js";
import { SENTINEL_API_KEY } from "../support/sentinel-key.js";

const schemas = writeFixtureSchemas(tempDir());

function envFor(provider: string, model: { url: string; baseURL: string }): NodeJS.ProcessEnv {
  const base = { AGENT_MODEL: "scripted-model", NO_COLOR: "1" };
  return provider === "anthropic" ? { ...base, ANTHROPIC_API_KEY: SENTINEL_API_KEY, ANTHROPIC_BASE_URL: model.url } : { ...base, OPENAI_API_KEY: SENTINEL_API_KEY, OPENAI_BASE_URL: model.baseURL };
}

describe.each(["chat", "anthropic", "responses"])("%s", (provider) => {
  it("a recorded session replays offline to the same answer; a changed request fails with the first difference", async () => {
    const cassette = path.join(tempDir(), "session.jsonl");
    const model = await startScriptedModel({
      script: [{ content: "Echoing.", toolCalls: [{ id: "call_1", name: "echo", arguments: { text: "hi" } }] }, { fault: "cut" }, { content: "It said hi." }],
    });
    const argv = ["--provider", provider, "--schemas", schemas, "--record", cassette];
    const recorded = await runCliInProcess([...argv, "echo hi"], envFor(provider, model));
    await model.close();
    expect(recorded).toMatchObject({ code: 0, stdout: "It said hi.\n" });

    const text = readFileSync(cassette, "utf8");
    const lines = text.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toEqual({ cassette: "sigloop", version: 1 });
    // Three attempts: the tool turn, the cut one, the answer.
    expect(lines).toHaveLength(4);
    expect(text).not.toContain(SENTINEL_API_KEY);
    expect(text).not.toMatch(/authorization|x-api-key/i);

    const replay = await replayCassette(cassette);
    try {
      const again = await runCliInProcess(["--schemas", schemas, "--provider", provider, "echo hi"], envFor(provider, replay));
      expect(again).toMatchObject({ code: 0, stdout: "It said hi.\n" });
      const changed = await runCliInProcess(["--schemas", schemas, "--provider", provider, "echo ho"], envFor(provider, replay));
      expect(changed.code).toBe(3);
      expect(changed.stderr).toContain("cassette mismatch: request #4 has no recorded exchange");
    } finally {
      await replay.close();
    }
    const fresh = await replayCassette(cassette);
    try {
      const changed = await runCliInProcess(["--schemas", schemas, "--provider", provider, "echo ho"], envFor(provider, fresh));
      expect(changed.code).toBe(3);
      expect(changed.stderr).toMatch(/cassette mismatch: request #1 differs from the recorded one at request\.body\..*: recorded "echo hi", got "echo ho"/);
    } finally {
      await fresh.close();
    }
  });
});
