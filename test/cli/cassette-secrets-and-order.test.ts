/**
 * What `--record FILE` writes where a key or credential could slip through, or the order could break:
 * a key the model echoes in a stream of a few characters an event (masked in the text the deltas spell,
 * and the replay prints what the recorded run printed), a URL password holding `"` and `\` (escaped in
 * JSON text), a body cut for silence before its retry (written in its place), the headers a retry
 * depends on, and a cassette that would overwrite the run's own transcript (refused).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { httpError, replayCassette, startScriptedModel } from "../../src/testing.js";
import { runCliInProcess, tempDir, writeFixtureSchemas } from "./support.js";

const schemas = writeFixtureSchemas(tempDir());
const KEY = "sk-proj-Q7xZ9kLm2Pw4Rt8Yv1Bn6Hj3Kd5Fs0Ga";

function envFor(provider: string, model: { url: string; baseURL: string }, key = KEY): NodeJS.ProcessEnv {
  const base = { AGENT_MODEL: "scripted-model", NO_COLOR: "1" };
  return provider === "anthropic" ? { ...base, ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: model.url } : { ...base, OPENAI_API_KEY: key, OPENAI_BASE_URL: model.baseURL };
}

/** Every string of a cassette, its bodies' JSON and events' JSON decoded too: what anyone reading the file could put together. */
function cassetteStrings(file: string): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") {
      found.push(value);
      for (const text of [value, ...value.split(/\r\n|\r|\n/).filter((line) => line.startsWith("data:")).map((line) => line.replace(/^data: ?/, ""))]) {
        try {
          const parsed: unknown = JSON.parse(text);
          if (typeof parsed === "object" && parsed !== null) walk(parsed);
        } catch {
          // not JSON: kept as the string it is
        }
      }
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === "object" && value !== null) Object.values(value).forEach(walk);
  };
  for (const line of readFileSync(file, "utf8").trim().split("\n")) walk(JSON.parse(line));
  return found;
}

/** The text each exchange's reply spells: its events' deltas joined, or its JSON body as it is. */
function spelled(file: string): string[] {
  return readFileSync(file, "utf8").trim().split("\n").slice(1).map((line) => {
    const { response } = JSON.parse(line) as { response: { body: string; contentType: string } };
    return response.contentType === "text/event-stream" ? deltaText(response.body) : response.body;
  });
}

/** The text a streamed reply's deltas spell. */
function deltaText(body: string): string {
  const pieces: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== "object" || value === null) return;
    for (const [field, item] of Object.entries(value)) {
      if (typeof item === "string" && ["content", "text", "delta"].includes(field)) pieces.push(item);
      else walk(item);
    }
  };
  for (const data of body.split("\n").filter((text) => text.startsWith("data: ") && text !== "data: [DONE]")) walk(JSON.parse(data.slice(6)));
  return pieces.join("");
}

describe.each(["chat", "anthropic", "responses"])("%s: a key the model echoes three characters an event", (provider) => {
  it("is masked in the text the cassette's deltas spell, and the replay prints what the recorded run printed", async () => {
    const cassette = path.join(tempDir(), "echo.jsonl");
    const model = await startScriptedModel({ script: [{ content: `your key is ${KEY} ok`, stream: { chunkSize: 3 } }] });
    const recorded = await runCliInProcess(["--provider", provider, "--schemas", schemas, "--record", cassette, "what is my key?"], envFor(provider, model));
    await model.close();
    expect(recorded).toMatchObject({ code: 0, stdout: "your key is *** ok\n" });
    const [reply] = spelled(cassette);
    expect(reply).toContain("your key is *** ok");
    expect(reply).not.toContain(KEY.slice(-8));
    expect(reply).not.toContain(KEY.slice(8, 24));

    const replay = await replayCassette(cassette);
    try {
      const again = await runCliInProcess(["--provider", provider, "--schemas", schemas, "what is my key?"], envFor(provider, replay, "sk-replay"));
      expect(again).toMatchObject({ code: 0, stdout: "your key is *** ok\n" });
    } finally {
      await replay.close();
    }
  });
});

describe("a URL password holding \" and \\", () => {
  it.each([["streamed", []], ["not streamed", ["--no-stream"]]])("is in no string of the cassette when the model says it (%s)", async (_how, flags) => {
    const password = 'pa"ss\\word-Xy7Kq';
    const cassette = path.join(tempDir(), "password.jsonl");
    const model = await startScriptedModel({ script: [{ content: `the password is ${password}` }] });
    const baseURL = model.baseURL.replace("http://", `http://bob:${encodeURIComponent(password)}@`);
    const recorded = await runCliInProcess(["--schemas", schemas, ...flags, "--record", cassette, "say it"], {
      AGENT_MODEL: "scripted-model", NO_COLOR: "1", OPENAI_API_KEY: KEY, OPENAI_BASE_URL: baseURL,
    });
    await model.close();
    expect(recorded).toMatchObject({ code: 0, stdout: "the password is ***\n" });
    expect(spelled(cassette)[0]).toContain("the password is ***");
    const strings = cassetteStrings(cassette);
    expect(strings.filter((text) => text.includes("pa\"ss") || text.includes("word-Xy7Kq"))).toEqual([]);
    expect(readFileSync(cassette, "utf8")).not.toContain("Xy7Kq");
  });
});

describe("a body cut for silence, then its retry", () => {
  it.each([["streamed", []], ["not streamed", ["--no-stream"]]])("is written before the retry's exchange, and the replay retries as the recorded run did (%s)", async (_how, flags) => {
    const cassette = path.join(tempDir(), "stall.jsonl");
    const model = await startScriptedModel({ script: [{ fault: "stall" }, { content: "recovered" }] });
    const argv = ["--schemas", schemas, ...flags, "--idle-timeout", "400", "hello"];
    const recorded = await runCliInProcess([...argv, "--record", cassette], envFor("chat", model));
    await model.close();
    expect(recorded).toMatchObject({ code: 0, stdout: "recovered\n" });
    const replies = spelled(cassette);
    expect(replies).toHaveLength(2);
    expect(replies[0]).not.toContain("recovered");
    expect(replies[1]).toContain("recovered");

    const replay = await replayCassette(cassette);
    try {
      const again = await runCliInProcess(argv, envFor("chat", replay));
      expect(again).toMatchObject({ code: 0, stdout: "recovered\n" });
      expect(again.stderr).toContain("retry 1 of");
      replay.assertAllPlayed();
    } finally {
      await replay.close();
    }
  });
});

describe("a retry the server's headers asked for", () => {
  it("keeps those headers in the cassette, and the replay retries too", async () => {
    const cassette = path.join(tempDir(), "retry.jsonl");
    const model = await startScriptedModel({ script: [httpError(400, "retry me", { headers: { "x-should-retry": "true" } }), { content: "ok" }] });
    const argv = ["--schemas", schemas, "--no-stream", "hello"];
    const recorded = await runCliInProcess([...argv, "--record", cassette], envFor("chat", model));
    await model.close();
    expect(recorded).toMatchObject({ code: 0, stdout: "ok\n" });
    const first = JSON.parse(readFileSync(cassette, "utf8").split("\n")[1]!) as { response: { status: number; headers?: Record<string, string> } };
    expect(first.response).toMatchObject({ status: 400, headers: { "x-should-retry": "true" } });

    const replay = await replayCassette(cassette);
    try {
      expect(await runCliInProcess(argv, envFor("chat", replay))).toMatchObject({ code: 0, stdout: "ok\n" });
      replay.assertAllPlayed();
    } finally {
      await replay.close();
    }
  });
});

describe("--record naming the run's own transcript", () => {
  it.each([["--transcript"], ["--resume"]])("is refused with %s before anything is sent, and the transcript is left as it was", async (flag) => {
    const dir = tempDir();
    const transcript = path.join(dir, "t.jsonl");
    const model = await startScriptedModel({ script: [{ content: "one" }] });
    expect(await runCliInProcess(["--schemas", schemas, "--transcript", transcript, "first"], envFor("chat", model))).toMatchObject({ code: 0 });
    const before = readFileSync(transcript, "utf8");
    const sent = model.requests.length;
    const other = flag === "--transcript" ? path.join(dir, "new.jsonl") : transcript;
    if (flag === "--transcript") writeFileSync(other, "");
    const refused = await runCliInProcess(["--schemas", schemas, flag, other, "--record", path.join(dir, flag === "--transcript" ? "new.jsonl" : "t.jsonl"), "second"], envFor("chat", model));
    await model.close();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`is the transcript of this run: the cassette would overwrite the conversation. Record into a file of its own.`);
    expect(model.requests.length).toBe(sent);
    expect(readFileSync(transcript, "utf8")).toBe(before);
  });
});
