/**
 * `--provider` and its environment as a user meets them: which API the CLI talks to by default and when
 * told, the key variable a missing key names, both keys masked whichever provider runs, and the flags
 * that belong to one provider refused on the others.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCliInProcess, tempDir, useCliFixture } from "./support.js";
import { SENTINEL_API_KEY } from "../support/sentinel-key.js";

const fx = useCliFixture();
/** A second real-looking key, for the provider not in use. */
const OTHER_KEY = "sk-ant-api03-Zq8vN2xLk4Rt7Wy1Bc5Df9Gh3Jm6Np0Qs";

async function run(argv: string[], env: NodeJS.ProcessEnv) {
  const result = await runCliInProcess(["--schemas", fx.schemas, ...argv], { AGENT_MODEL: "scripted-model", NO_COLOR: "1", ...env });
  fx.outputs.push(result.stdout, result.stderr);
  return result;
}

describe("which API", () => {
  it("only ANTHROPIC_API_KEY set: Anthropic Messages at ANTHROPIC_BASE_URL (no /v1)", async () => {
    fx.server.setScript([{ content: "from claude" }]);
    const before = fx.server.requests.length;
    const result = await run(["hi"], { ANTHROPIC_API_KEY: SENTINEL_API_KEY, ANTHROPIC_BASE_URL: fx.server.url });
    expect(result).toMatchObject({ code: 0, stdout: "from claude\n" });
    expect(fx.server.requests[before]).toMatchObject({ dialect: "anthropic", path: "/v1/messages", violations: [] });
    expect(fx.server.requests[before]?.body).toMatchObject({ model: "scripted-model", max_tokens: 8192 });
  });

  it("both keys set: chat by default; --provider responses talks to /v1/responses", async () => {
    fx.server.setScript([{ content: "chat" }, { content: "responses" }]);
    const before = fx.server.requests.length;
    const env = { OPENAI_API_KEY: SENTINEL_API_KEY, OPENAI_BASE_URL: fx.server.baseURL, ANTHROPIC_API_KEY: OTHER_KEY };
    expect(await run(["hi"], env)).toMatchObject({ code: 0, stdout: "chat\n" });
    expect(await run(["--provider", "responses", "--max-tokens", "300", "hi"], env)).toMatchObject({ code: 0, stdout: "responses\n" });
    expect(fx.server.requests.slice(before).map((request) => request.path)).toEqual(["/v1/chat/completions", "/v1/responses"]);
    expect(fx.server.requests[before + 1]?.body).toMatchObject({ max_output_tokens: 300, store: false });
  });

  it("a missing key names the chosen provider's variable (exit 2)", async () => {
    const result = await run(["--provider", "anthropic", "hi"], { OPENAI_API_KEY: SENTINEL_API_KEY });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("ANTHROPIC_API_KEY is not set");
  });

  it.each([
    [["--provider", "gemini", "hi"], "--provider takes chat, anthropic, responses"],
    [["--thinking", "2048", "hi"], "--thinking is Anthropic's extended thinking"],
    [["--provider", "anthropic", "--thinking", "512", "hi"], "at least 1024"],
    [["--provider", "anthropic", "--thinking", "4096", "--max-tokens", "4096", "hi"], "must be more than the --thinking budget"],
    [["--reasoning-effort", "high", "hi"], "--reasoning-effort applies to --provider responses"],
    [["--provider", "responses", "--reasoning-effort", "max", "hi"], "--reasoning-effort takes low, medium, high"],
  ])("%j: exit 2, saying why", async (argv, message) => {
    const result = await run(argv, { OPENAI_API_KEY: SENTINEL_API_KEY, ANTHROPIC_API_KEY: OTHER_KEY });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

it("both keys are masked, whichever provider runs", async () => {
  fx.server.setScript([{ toolCalls: [{ id: "k1", name: "echo", arguments: { text: OTHER_KEY } }] }, { content: `the other key is ${OTHER_KEY}` }]);
  const result = await run(["--provider", "anthropic", "hi"], { ANTHROPIC_API_KEY: SENTINEL_API_KEY, ANTHROPIC_BASE_URL: fx.server.url, OPENAI_API_KEY: OTHER_KEY });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("the other key is ***\n");
  expect(result.stderr).not.toContain(OTHER_KEY.slice(-8));
});

it("a transcript with another provider's thinking resumes on chat: the part is not sent, and one stderr line says so", async () => {
  const transcript = path.join(tempDir(), "t.jsonl");
  const thinking = { provider: "anthropic", block: { type: "thinking", thinking: "private plan", signature: "c2lnbmF0dXJl" } };
  writeFileSync(transcript, [{ role: "user", content: "hi" }, { role: "assistant", content: "hello", parts: [thinking] }].map((line) => JSON.stringify(line)).join("\n") + "\n");
  fx.server.setScript([{ content: "again" }]);
  const before = fx.server.requests.length;
  const result = await run(["--resume", transcript, "and again"], { OPENAI_API_KEY: SENTINEL_API_KEY, OPENAI_BASE_URL: fx.server.baseURL });
  expect(result).toMatchObject({ code: 0, stdout: "again\n" });
  expect(result.stderr.split("\n").filter((line) => line.startsWith("note: the transcript holds 1 reasoning part"))).toHaveLength(1);
  expect(fx.server.requests[before]?.violations).toEqual([]);
  expect(fx.server.requests[before]?.rawBody).not.toContain("private plan");
  expect(readFileSync(transcript, "utf8")).toContain("private plan");
});
