/**
 * `replayCassette` plays what was recorded as it was recorded, and reads what a user's cassette holds:
 * the recorded retry headers come back (so an SDK retries as it did); a cassette recorded through a base
 * URL with a path prefix (OpenRouter's `/api/v1`, a proxy's `/proxy`) replays at the replay's own URL; a
 * masked key (`***`) in a recorded string stands for what it hid; `file:N` names the line an editor
 * shows, past a BOM and blank lines, and a status or media type the replay could not send is named there;
 * two long strings that differ late are shown where they differ.
 */
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import fc from "fast-check";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { replayCassette, startScriptedModel, type CassetteExchange, type CassetteReplay } from "../../src/testing.js";
import { firstDifference } from "../../src/testing/replay-cassette.js";
import { runCliInProcess, tempDir, writeFixtureSchemas } from "../cli/support.js";
import { SENTINEL_API_KEY } from "../support/sentinel-key.js";
import { ask, cassetteLines, exchange, post, writeCassette, writeCassetteText } from "./cassettes.js";

let replay: CassetteReplay | undefined;
afterEach(async () => {
  await replay?.close();
  replay = undefined;
});

/** The JSON error an SDK reads from a refusal. */
async function refusalOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { message: string } }).error.message;
}

/** POSTs `body` as JSON to `url`. */
const postTo = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** `recorded`'s request with its first message's content replaced. */
function asking(recorded: CassetteExchange, content: string): unknown {
  return { ...(recorded.request.body as object), messages: [{ role: "user", content }] };
}

describe("replayCassette serves the recorded response headers", () => {
  it("the OpenAI SDK retries a recorded 400 marked x-should-retry: true, as it did when recording, and gets the recorded answer", async () => {
    const refused: CassetteExchange = {
      request: exchange("hi", "").request,
      response: { status: 400, contentType: "application/json", body: JSON.stringify({ error: { message: "try again", type: "invalid_request_error", param: null, code: null } }), headers: { "x-should-retry": "true", "retry-after-ms": "5" } },
    };
    replay = await replayCassette(writeCassette([refused, exchange("hi", "hello")]));
    const client = new OpenAI({ apiKey: "test", baseURL: replay.baseURL, maxRetries: 2 });
    const completion = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]?.message.content).toBe("hello");
    expect(replay.requests).toHaveLength(2);
    expect(() => replay!.assertAllPlayed()).not.toThrow();
  });

  it("the headers come back beside the media type; a cassette without headers (recorded before they were) still replays", async () => {
    const limited: CassetteExchange = { ...exchange("hi", ""), response: { status: 429, contentType: "application/json", body: "{}", headers: { "retry-after": "7", "x-should-retry": "false" } } };
    replay = await replayCassette(writeCassette([limited, exchange("hi", "hello")]));
    const first = await postTo(`${replay.baseURL}/chat/completions`, limited.request.body);
    expect([first.status, first.headers.get("retry-after"), first.headers.get("x-should-retry"), first.headers.get("content-type")]).toEqual([429, "7", "false", "application/json"]);
    await first.text();
    const second = await postTo(`${replay.baseURL}/chat/completions`, limited.request.body);
    expect([second.status, second.headers.get("retry-after"), second.headers.get("content-type")]).toEqual([200, null, "application/json"]);
    await second.text();
  });

  it("headers that are not an object of strings make the line no exchange; a header the replay could not send is named", async () => {
    const withHeaders = (headers: unknown) => ({ ...exchange("hi", "hello"), response: { ...exchange("hi", "hello").response, headers } });
    for (const headers of [{ "retry-after": 5 }, ["retry-after"], "retry-after: 5", null]) {
      const file = writeCassetteText(cassetteLines(withHeaders(headers)).join("\n"));
      await expect(replayCassette(file)).rejects.toThrow(
        new Error(`${file}:2: not a cassette exchange ({ request: { method, path, body }, response: { status, contentType, body, headers? } })`),
      );
    }
    const split = writeCassetteText(cassetteLines(withHeaders({ "retry-after": "1\r\nset-cookie: a=b" })).join("\n"));
    await expect(replayCassette(split)).rejects.toThrow(new Error(`${split}:2: response.headers["retry-after"] must be visible ASCII characters, spaces and tabs (no line break), not "1\\r\\nset-cookie: a=b"`));
    const framing = writeCassetteText(cassetteLines(withHeaders({ "Content-Length": "3" })).join("\n"));
    await expect(replayCassette(framing)).rejects.toThrow(new Error(`${framing}:2: response.headers must not hold "Content-Length": the replay sends the body as recorded, with response.contentType`));
  });
});

describe("replayCassette plays a cassette recorded through a base URL with a path prefix at its own URL", () => {
  it.each([
    ["OpenRouter's /api/v1, Chat Completions", "/api/v1/chat/completions", (model: CassetteReplay) => `${model.baseURL}/chat/completions`],
    ["a gateway's /openai/v1, Responses", "/openai/v1/responses", (model: CassetteReplay) => `${model.baseURL}/responses`],
    ["an Anthropic proxy's /proxy, Messages", "/proxy/v1/messages", (model: CassetteReplay) => `${model.url}/v1/messages`],
  ])("%s", async (_name, recordedPath, endpoint) => {
    const recorded = exchange("hi", "hello");
    replay = await replayCassette(writeCassette([{ ...recorded, request: { ...recorded.request, path: recordedPath } }]));
    const response = await postTo(endpoint(replay), recorded.request.body);
    expect([response.status, await response.text()]).toEqual([200, recorded.response.body]);
    expect(() => replay!.assertAllPlayed()).not.toThrow();
  });

  it("another endpoint is still a mismatch, naming both paths as they were sent", async () => {
    const recorded = exchange("hi", "hello");
    replay = await replayCassette(writeCassette([{ ...recorded, request: { ...recorded.request, path: "/api/v1/chat/completions" } }]));
    const response = await postTo(`${replay.baseURL}/responses`, recorded.request.body);
    expect([response.status, await refusalOf(response)]).toEqual([400, 'cassette mismatch: request #1 differs from the recorded one at request.path: recorded "/api/v1/chat/completions", got "/v1/responses"']);
  });

  it("the agent recorded through an OpenRouter-style https://host/api/v1 replays at replay.baseURL", async () => {
    const schemas = writeFixtureSchemas(tempDir());
    const argv = ["--provider", "chat", "--schemas", schemas];
    const env = (baseURL: string) => ({ AGENT_MODEL: "scripted-model", NO_COLOR: "1", OPENAI_API_KEY: SENTINEL_API_KEY, OPENAI_BASE_URL: baseURL });
    const model = await startScriptedModel({ script: [{ content: "Echoing.", toolCalls: [{ id: "call_1", name: "echo", arguments: { text: "hi" } }] }, { content: "It said hi." }] });
    const gateway = await prefixGateway("/api", model.url);
    const cassette = path.join(tempDir(), "session.jsonl");
    try {
      const recorded = await runCliInProcess([...argv, "--record", cassette, "echo hi"], env(`${gateway.url}/api/v1`));
      expect(recorded).toMatchObject({ code: 0, stdout: "It said hi.\n" });
      expect(model.requests.map((request) => request.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions"]);
    } finally {
      await gateway.close();
      await model.close();
    }
    replay = await replayCassette(cassette);
    const again = await runCliInProcess([...argv, "echo hi"], env(replay.baseURL));
    expect(again).toMatchObject({ code: 0, stdout: "It said hi.\n" });
    expect(() => replay!.assertAllPlayed()).not.toThrow();
  });
});

/** A gateway in front of `upstream` that serves it under `prefix` (`/api/v1/chat/completions` → `/v1/chat/completions`), as OpenRouter's URLs look. */
async function prefixGateway(prefix: string, upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const forwarded = httpRequest(`${upstream}${(req.url ?? "").slice(prefix.length)}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on("error", () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("replayCassette matches a masked key (***) in a recorded string", () => {
  // A URL password that is an ordinary word is masked everywhere the word occurs, prompts included.
  const masked = exchange("how do I reset my ***?", "Use the reset link.");

  it("the prompt the cassette hid a word of plays its exchange", async () => {
    replay = await replayCassette(writeCassette([masked]));
    expect(await post(replay, JSON.stringify(asking(masked, "how do I reset my password?")))).toBe(200);
    expect(() => replay!.assertAllPlayed()).not.toThrow();
  });

  it.each([
    ["nothing in place of ***", "how do I reset my ?"],
    ["more after the end", "how do I reset my password? now"],
    ["a different start", "why do I reset my password?"],
  ])("%s is a mismatch", async (_name, prompt) => {
    replay = await replayCassette(writeCassette([masked]));
    const response = await postTo(`${replay.baseURL}/chat/completions`, asking(masked, prompt));
    expect([response.status, await refusalOf(response)]).toEqual([400, `cassette mismatch: request #1 differs from the recorded one at request.body.messages[0].content: recorded "how do I reset my ***?", got ${JSON.stringify(prompt)}`]);
  });

  it("for any recorded string and any string, they match exactly as the pattern with each *** as one or more characters would", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", "*"), maxLength: 12 });
    fc.assert(
      fc.property(text, text, (recorded, actual) => {
        const pattern = new RegExp(`^${recorded.split("***").map((piece) => piece.replace(/[*]/g, "\\*")).join("[^]+")}$`);
        expect(firstDifference(recorded, actual, "s") === undefined).toBe(pattern.test(actual));
      }),
      { numRuns: 2000, seed: 7 },
    );
  });
});

describe("replayCassette reads a cassette as an editor shows it", () => {
  const line = JSON.stringify(exchange("one", "1"));

  it("names the line an editor shows, blank lines counted", async () => {
    const file = writeCassetteText(`${cassetteLines()[0]}\n\n${line}\n\n{"request":{}}\n`);
    await expect(replayCassette(file)).rejects.toThrow(
      new Error(`${file}:5: not a cassette exchange ({ request: { method, path, body }, response: { status, contentType, body, headers? } })`),
    );
  });

  it("reads a cassette an editor saved with a byte order mark", async () => {
    replay = await replayCassette(writeCassetteText(`\uFEFF${cassetteLines()[0]}\n${line}\n`));
    expect(await ask(replay, exchange("one", "1"))).toBe(200);
  });

  it.each([
    [1000, "1000"],
    [99, "99"],
    [200.5, "200.5"],
  ])("a status of %s is named with its line", async (status, shown) => {
    const file = writeCassetteText(`${cassetteLines()[0]}\n${line}\n\n\n${JSON.stringify({ ...exchange("two", "2"), response: { ...exchange("two", "2").response, status } })}\n`);
    await expect(replayCassette(file)).rejects.toThrow(new Error(`${file}:5: response.status must be an HTTP status (an integer from 100 to 599), not ${shown}`));
  });

  it("a media type with a line break is named with its line", async () => {
    const file = writeCassetteText(cassetteLines({ ...exchange("one", "1"), response: { ...exchange("one", "1").response, contentType: "application/json\r\nx-injected: 1" } }).join("\n"));
    await expect(replayCassette(file)).rejects.toThrow(
      new Error(`${file}:2: response.contentType must be a media type of visible ASCII characters, spaces and tabs (no line break), not "application/json\\r\\nx-injected: 1"`),
    );
  });
});

describe("replayCassette's mismatch message", () => {
  it("shows two long strings where they differ, with the offset", async () => {
    const long = (middle: string) => `${"a".repeat(300)}${middle} tail of the prompt${"z".repeat(100)}`;
    const recorded = exchange(long("X"), "1");
    replay = await replayCassette(writeCassette([recorded]));
    const response = await postTo(`${replay.baseURL}/chat/completions`, asking(recorded, long("Y")));
    const around = (middle: string) => `"…${"a".repeat(24)}${middle} tail of the prompt${"z".repeat(4)}…"`;
    expect(await refusalOf(response)).toBe(`cassette mismatch: request #1 differs from the recorded one at request.body.messages[0].content: recorded ${around("X")}, got ${around("Y")} (they differ from offset 300)`);
  });

  it("shows where a long string ends when the other goes on", () => {
    const recorded = "b".repeat(200);
    expect(firstDifference(recorded, `${recorded}!`, "s")).toBe(`s: recorded "…${"b".repeat(24)}", got "…${"b".repeat(24)}!" (they differ from offset 200)`);
  });

  it("a recorded -0 equals the 0 an SDK sends", async () => {
    const recorded = exchange("one", "1");
    const text = cassetteLines(recorded).join("\n").replace('"model":"m"', '"model":"m","temperature":-0');
    replay = await replayCassette(writeCassetteText(text));
    expect(await post(replay, JSON.stringify({ ...(recorded.request.body as object), temperature: 0 }))).toBe(200);
  });
});
