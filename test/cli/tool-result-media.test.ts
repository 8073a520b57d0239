/**
 * A tool's images and audio as the model receives them, per API, in the request the scripted server saw
 * (it checks the shapes as strictly as the real APIs): Anthropic `tool_result` image blocks and Responses
 * `input_image` items for the image types they take, a one-line note for every other medium and for
 * Chat Completions; the transcript keeps what was sent. And what running tools report, on stderr.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot, readTranscriptLines, runCliInProcess, tempDir, useCliFixture } from "./support.js";
import { SENTINEL_API_KEY } from "../support/sentinel-key.js";
import { richSchemas } from "../fixtures/rich-results/schemas.js";
import { PNG } from "../fixtures/rich-results/tools/media.js";

const fx = useCliFixture();
const { file: schemas } = richSchemas();
const PNG_NOTE = "[image: image/png, 70 bytes, not shown]";
const AUDIO_NOTE = "[audio: audio/wav, 44 bytes, not shown]";
const SVG_NOTE = "[image: image/svg+xml, 41 bytes, not shown]";

const providers = {
  chat: () => ({ argv: [], env: { OPENAI_API_KEY: SENTINEL_API_KEY, OPENAI_BASE_URL: fx.server.baseURL } }),
  anthropic: () => ({ argv: ["--provider", "anthropic"], env: { ANTHROPIC_API_KEY: SENTINEL_API_KEY, ANTHROPIC_BASE_URL: fx.server.url } }),
  responses: () => ({ argv: ["--provider", "responses"], env: { OPENAI_API_KEY: SENTINEL_API_KEY, OPENAI_BASE_URL: fx.server.baseURL } }),
};

/** One run in which the model calls `calls` in one turn, then answers; the second request, the transcript and stderr. */
async function runCalling(provider: keyof typeof providers, calls: Array<{ name: string; arguments?: object }>, extra: string[] = []) {
  const { argv, env } = providers[provider]();
  fx.server.setScript([{ toolCalls: calls.map((call, i) => ({ id: `call_${i}`, name: call.name, arguments: JSON.stringify(call.arguments ?? {}) })) }, { content: "seen" }]);
  const before = fx.server.requests.length;
  const transcript = path.join(tempDir(), "run.jsonl");
  const result = await runCliInProcess(["--schemas", schemas, ...argv, ...extra, "--transcript", transcript, "show me"], { AGENT_MODEL: "scripted-model", NO_COLOR: "1", ...env });
  fx.outputs.push(result.stdout, result.stderr);
  expect(result).toMatchObject({ code: 0, stdout: "seen\n" });
  const request = fx.server.requests[before + 1]!;
  expect(request.violations).toEqual([]);
  return { body: request.body as unknown as Record<string, unknown>, tool: readTranscriptLines(transcript).filter((line) => line.role === "tool"), stderr: result.stderr };
}

const base64 = PNG.toString("base64");

describe("an image in a tool result", () => {
  it("goes to Anthropic as image blocks among the text, in order; audio and other image types as notes", async () => {
    const { body, tool } = await runCalling("anthropic", [{ name: "chart_with_caption" }, { name: "logo" }]);
    const user = (body.messages as Array<{ role: string; content: unknown[] }>).at(-1)!;
    expect(user.content).toEqual([
      {
        type: "tool_result",
        tool_use_id: "call_0",
        content: [
          { type: "text", text: "Sales by month" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: base64 } },
          { type: "text", text: "Spoken summary:" },
          { type: "text", text: AUDIO_NOTE },
        ],
      },
      { type: "tool_result", tool_use_id: "call_1", content: SVG_NOTE, cache_control: { type: "ephemeral" } },
    ]);
    expect(tool).toEqual([
      {
        role: "tool",
        tool_call_id: "call_0",
        content: `Sales by month\n${PNG_NOTE}\nSpoken summary:\n${AUDIO_NOTE}`,
        items: [
          { type: "text", text: "Sales by month" },
          { type: "image", mimeType: "image/png", data: base64 },
          { type: "text", text: "Spoken summary:" },
          { type: "text", text: AUDIO_NOTE },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: SVG_NOTE },
    ]);
  });

  it("goes to the Responses API as input_image with a data URL in the function_call_output list", async () => {
    const { body, tool } = await runCalling("responses", [{ name: "chart" }]);
    const outputs = (body.input as Array<Record<string, unknown>>).filter((item) => item.type === "function_call_output");
    expect(outputs).toEqual([{ type: "function_call_output", call_id: "call_0", output: [{ type: "input_image", image_url: `data:image/png;base64,${base64}` }] }]);
    expect(tool).toEqual([{ role: "tool", tool_call_id: "call_0", content: PNG_NOTE, items: [{ type: "image", mimeType: "image/png", data: base64 }] }]);
  });

  it("reaches Chat Completions as its note (tool messages take no images), and the transcript holds the same", async () => {
    const { body, tool } = await runCalling("chat", [{ name: "chart_with_caption" }]);
    const sent = (body.messages as Array<Record<string, unknown>>).filter((message) => message.role === "tool");
    const content = `Sales by month\n${PNG_NOTE}\nSpoken summary:\n${AUDIO_NOTE}`;
    expect(sent).toEqual([{ role: "tool", tool_call_id: "call_0", content }]);
    expect(tool).toEqual([{ role: "tool", tool_call_id: "call_0", content }]);
  });
});

describe("what a running tool reports", () => {
  it("is on stderr, one line each: progress with its count, log lines at info and above with their level", async () => {
    const { stderr } = await runCalling("chat", [{ name: "count_to", arguments: { steps: 2, pauseMs: 80 } }, { name: "chatty" }]);
    const lines = stderr.split("\n");
    for (const line of ["  … count_to progress 1/2: step 1", "  … count_to progress 2/2: step 2", "  … chatty info: fetching rates", "  … chatty warning: rate for XYZ missing", "  … chatty error: upstream said 503"]) {
      expect(lines).toContain(line);
    }
    expect(stderr).not.toContain("cache warm");
    expect(stderr).not.toContain("\u001b[");
  });
});

describe("an MCP server's tool that returns an image or reports progress", () => {
  it("is handled as a local tool's: the image goes to Anthropic as an image block, the progress to stderr", async () => {
    const config = path.join(tempDir(), "mcp.json");
    const server = { command: process.execPath, args: ["--import", "tsx", path.join(projectRoot, "scripts/mcp.ts"), "--workspace", path.dirname(schemas), "--schemas", schemas], cwd: projectRoot };
    writeFileSync(config, JSON.stringify({ mcpServers: { rich: server } }));
    const { body, stderr } = await runCalling("anthropic", [{ name: "rich__chart_with_caption" }, { name: "rich__count_to", arguments: { steps: 2, pauseMs: 80 } }], ["--mcp", config, "--allow", "*"]);
    const user = (body.messages as Array<{ role: string; content: Array<{ content: unknown }> }>).at(-1)!;
    expect(user.content[0]!.content).toEqual([
      { type: "text", text: "Sales by month" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: base64 } },
      { type: "text", text: "Spoken summary:" },
      { type: "text", text: AUDIO_NOTE },
    ]);
    expect(stderr.split("\n")).toEqual(expect.arrayContaining(["  … rich__count_to progress 1/2: step 1", "  … rich__count_to progress 2/2: step 2"]));
  }, 60_000);
});
