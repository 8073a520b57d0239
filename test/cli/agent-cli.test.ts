/**
 * The CLI run in this process against the scripted server through the real SDK: what the user sees on
 * stdout and stderr, the exit code, and the transcript. Process-level behaviour (signals, stdin closed,
 * real exit codes) is in agent-process.test.ts.
 */
import { appendFileSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { INTERRUPTED_TOOL_RESULT } from "../../src/runtime/loop/interrupted-tool-calls.js";
import { httpError, modelNotFound, startScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, projectRoot, readTranscriptLines, runCliInProcess, SENTINEL_KEY, tempDir, useCliFixture, writeFixtureSchemas, type CliRun } from "./support.js";
import type { ChatMessage } from "../../src/runtime/loop/messages.js";
import { chatWireMessage } from "../../src/runtime/loop/provider-parts.js";

const fx = useCliFixture();
beforeEach(() => fx.server.setScript([]));

async function cli(argv: string[], env = cliEnv(fx.server.baseURL)): Promise<CliRun> {
  const run = await runCliInProcess(["--schemas", fx.schemas, ...argv], env, fx.dir);
  fx.outputs.push(run.stdout, run.stderr);
  return run;
}

function transcriptText(file: string): string {
  const text = readFileSync(file, "utf8");
  fx.outputs.push(text);
  return text;
}

function lastRequestMessages(): unknown[] {
  return fx.server.requests.at(-1)?.body?.messages as unknown[];
}

describe("one prompt", () => {
  it("prints only the answer on stdout and the progress on stderr; flags before and after the prompt", async () => {
    fx.server.setScript([
      { content: "Checking.", toolCalls: [{ id: "c1", name: "echo", arguments: '{"text":"a long argument that goes on"}' }, { id: "c2", name: "fail", arguments: "" }], usage: { prompt: 50, completion: 5, cached: 32 } },
      { content: "The answer." },
    ]);
    const transcript = path.join(fx.dir, "one.jsonl");
    const run = await cli(["--max-turns", "4", "what", "is", "it?", "--transcript", transcript, "--model=other-model"]);
    expect(run).toMatchObject({ code: 0, stdout: "The answer.\n" });
    expect(run.stderr).toContain("turn 1");
    expect(run.stderr).toContain('→ echo({"text":"a long argument that goes on"})');
    expect(run.stderr).toContain("← echo ok: echo: a long argument that goes on");
    expect(run.stderr).toContain("← fail tool_error: The tool fail itself failed: RangeError: fixture failure");
    expect(run.stderr).toContain("tokens: 50 in (32 cached), 5 out");
    expect(run.stderr).toContain("answered after 2 turns");
    expect(run.stderr).not.toMatch(/\u001b\[/);
    const body = fx.server.requests.at(-1)?.body;
    expect(body?.model).toBe("other-model");
    expect((body?.messages as Array<{ content: string }>)[1]?.content).toBe("what is it?");
    expect(fx.server.requests.map((r) => r.violations)).toEqual([[], []]);
    // The tools list was byte-identical on both requests (the server flags any change within a conversation).
    expect(fx.server.requests.flatMap((r) => r.flags)).toEqual([]);
    // The transcript is exactly the last request's messages plus the answer, and records each result's
    // outcome when it was not ok (which Chat Completions is not sent).
    transcriptText(transcript);
    const lines = readTranscriptLines(transcript);
    expect(lines.map(chatWireMessage)).toEqual([...lastRequestMessages(), { role: "assistant", content: "The answer." }]);
    expect(lines.filter((line) => line.role === "tool").map((line) => line.status)).toEqual([undefined, "tool_error"]);
  });

  it("masks the key wherever it could surface: a .env read from the workspace, the answer, the transcript", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, ".env"), `OPENAI_API_KEY=${SENTINEL_KEY}\n`);
    const realTools = writeFixtureSchemas(tempDir(), path.join(projectRoot, "tools"));
    fx.server.setScript([{ toolCalls: [{ id: "k1", name: "read_file", arguments: '{"path":".env"}' }] }, { content: `The key is ${SENTINEL_KEY}.` }]);
    const transcript = path.join(fx.dir, "key.jsonl");
    const before = fx.server.requests.length;
    const run = await runCliInProcess(["--schemas", realTools, "--workspace", ws, "--no-stream", "what is in .env?", "--transcript", transcript], cliEnv(fx.server.baseURL), fx.dir);
    fx.outputs.push(run.stdout, run.stderr);
    expect(run).toMatchObject({ code: 0, stdout: "The key is ***.\n" });
    const toolMessage = (lastRequestMessages() as ChatMessage[]).find((message) => message.role === "tool");
    expect(toolMessage?.content).toBe("OPENAI_API_KEY=***\n");
    for (const request of fx.server.requests.slice(before)) expect(request.rawBody).not.toContain(SENTINEL_KEY.slice(-8));
    expect(readTranscriptLines(transcript).at(-1)).toEqual({ role: "assistant", content: "The key is ***." });
    transcriptText(transcript);
  });

  it("stops at the turn limit: nothing on stdout, exit 1, says how to raise it", async () => {
    fx.server.setScript(() => ({ toolCalls: [{ id: "c", name: "echo", arguments: '{"text":"again"}' }] }));
    const run = await cli(["--max-turns", "2", "loop forever", "--no-stream"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("turn limit was reached (2 model requests)");
    expect(run.stderr).toContain("--max-turns");
    expect(fx.server.requests.slice(-2).map((r) => r.body?.stream === true)).toEqual([false, false]);
  });

  it("retries a turn cut by the token limit, then stops clearly (exit 4)", async () => {
    fx.server.setScript(() => ({ content: "cut sho", finishReason: "length" }));
    const run = await cli(["write a novel"]);
    expect(run.code).toBe(4);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain('cut off by the token limit (finish_reason "length")');
    expect(run.stderr).toContain("retry 2 of 2");
    expect(run.stderr).toContain("all 3 responses were cut off");
  });

  it("stops on content_filter and unknown finish reasons without running tools (exit 4)", async () => {
    fx.server.setScript([{ toolCalls: [{ id: "c", name: "fail", arguments: "{}" }], finishReason: "content_filter" }]);
    const filtered = await cli(["x"]);
    expect(filtered.code).toBe(4);
    expect(filtered.stderr).toContain("content filter");
    expect(filtered.stderr).not.toContain("→ fail");
    fx.server.setScript([{ content: "hm", finishReason: "eos_weird" }]);
    const unknown = await cli(["x"]);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('unknown finish_reason "eos_weird"');
  });

  it("a refusal is a clear stop with the model's words, not an empty answer (exit 4), streamed or not", async () => {
    for (const flags of [[], ["--no-stream"]]) {
      fx.server.setScript([{ content: "", extraMessageFields: { refusal: "I can't help with that." } }]);
      const transcript = path.join(tempDir(), "refused.jsonl");
      const refused = await cli(["do the bad thing", "--transcript", transcript, ...flags]);
      expect(refused.code).toBe(4);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toContain(`Stopped: the model refused to answer: "I can't help with that."`);
      // Like any stop without an answer, the turn is not added: the transcript ends with the prompt.
      expect(readTranscriptLines(transcript).at(-1)).toEqual({ role: "user", content: "do the bad thing" });
    }
  });
});

describe("tool modules, imported while the first request is answered", () => {
  /** A tools folder with a healthy tool and one whose module throws when imported; its schemas file. */
  function toolsWithBrokenModule(): { schemas: string; brokenFile: string } {
    const dir = tempDir();
    const tools = path.join(dir, "tools");
    cpSync(path.join(projectRoot, "test/cli/fixtures/tools/echo.ts"), path.join(tools, "echo.ts"));
    writeFileSync(path.join(tools, "no_database.ts"), `throw new Error("no database at startup");\n\n/** Looks a record up. */\nexport function lookup(id: string): string {\n  return id;\n}\n`);
    return { schemas: writeFixtureSchemas(dir, tools), brokenFile: "tools/no_database.ts" };
  }

  async function run(schemas: string, prompt: string): Promise<CliRun> {
    const result = await runCliInProcess(["--schemas", schemas, "--no-stream", prompt], cliEnv(fx.server.baseURL), fx.dir);
    fx.outputs.push(result.stdout, result.stderr);
    return result;
  }

  it("a module that fails to import says so in its tool's first result, as a setup problem, and nowhere before", async () => {
    const { schemas, brokenFile } = toolsWithBrokenModule();
    fx.server.setScript([
      { toolCalls: [{ id: "e1", name: "echo", arguments: '{"text":"first"}' }] },
      { toolCalls: [{ id: "l1", name: "lookup", arguments: '{"id":"42"}' }] },
      { content: "No database." },
    ]);
    const before = fx.server.requests.length;
    const result = await run(schemas, "look 42 up");
    expect(result).toMatchObject({ code: 0, stdout: "No database.\n" });
    const failure = `The tool lookup could not be loaded from ${brokenFile}: Error: no database at startup. This is a setup problem, not an argument problem; run npm run gen if the tools changed.`;
    const toolMessages = (lastRequestMessages() as ChatMessage[]).filter((message) => message.role === "tool");
    expect(toolMessages).toEqual([
      { role: "tool", tool_call_id: "e1", content: "echo: first" },
      { role: "tool", tool_call_id: "l1", content: failure },
    ]);
    expect(fx.server.requests.length - before).toBe(3);
    // Nothing about the module before the call that needed it: the first mention is the tool's result line.
    const lines = result.stderr.split("\n");
    expect(lines.findIndex((line) => line.includes("no database"))).toBe(lines.findIndex((line) => line.startsWith("  ← lookup tool_error: The tool lookup could not be loaded")));
    expect(lines.findIndex((line) => line.includes("no database"))).toBeGreaterThan(lines.findIndex((line) => line.startsWith("  → lookup")));
  });

  it("a run whose model calls no tool of a broken module ends as if the module were fine", async () => {
    const { schemas } = toolsWithBrokenModule();
    fx.server.setScript([{ toolCalls: [{ id: "e1", name: "echo", arguments: '{"text":"only"}' }] }, { content: "Done." }]);
    const result = await run(schemas, "echo something");
    expect(result).toMatchObject({ code: 0, stdout: "Done.\n" });
    expect(result.stderr).not.toContain("no database");
    expect(result.stderr).not.toContain("could not be loaded");
  });
});

describe("API errors: exit 3, status, the API's message and a hint; never the key or a stack", () => {
  it("401 with the key echoed back by the gateway", async () => {
    const guarded = await startScriptedServer({ script: [{ content: "never" }], apiKey: "the-right-key" });
    const run = await cli(["hi"], cliEnv(guarded.baseURL));
    await guarded.close();
    expect(run.code).toBe(3);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("401");
    expect(run.stderr).toContain("Incorrect API key provided");
    expect(run.stderr).toContain("OPENAI_API_KEY");
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("model not found names the status and the variable to set", async () => {
    fx.server.setScript([modelNotFound("scripted-model")]);
    const run = await cli(["hi"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("404");
    expect(run.stderr).toContain("AGENT_MODEL");
  });

  it("a 500 that persists is retried, then reported with its status", async () => {
    fx.server.setScript(() => httpError(500, "upstream exploded", { headers: { "retry-after-ms": "1" } }));
    const run = await cli(["hi"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("retry 1 of");
    expect(run.stderr).toContain("HTTP 500");
    expect(run.stderr).toContain("upstream exploded");
  });

  it("--request-timeout bounds the wait for a response that never starts: retried, then answered", async () => {
    fx.server.setScript([{ content: "too late", delayMs: 5_000 }, { content: "on time" }]);
    const run = await cli(["hi", "--request-timeout", "300", "--no-stream"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("on time\n");
    expect(run.stderr).toContain("retrying: the request failed (timeout: no response headers in time)");
  });

  it("an unreachable endpoint says it could not connect and to which URL", async () => {
    const run = await cli(["hi"], cliEnv("http://127.0.0.1:9/v1"));
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("could not connect to http://127.0.0.1:9/v1");
    expect(run.stderr).toContain("OPENAI_BASE_URL");
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 20_000);
});

describe("usage and setup errors", () => {
  it("exit 2 for an unknown flag (named), a flag without value, a missing key, no prompt without a terminal", async () => {
    const requestsBefore = fx.server.requests.length;
    const unknown = await cli(["--verbose", "hi"]);
    expect(unknown).toMatchObject({ code: 2, stdout: "" });
    expect(unknown.stderr).toContain("unknown flag --verbose");
    const noValue = await cli(["hi", "--max-turns"]);
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toContain("--max-turns needs a value");
    const badNumber = await cli(["hi", "--max-turns", "zero"]);
    expect(badNumber.code).toBe(2);
    const noKey = await cli(["hi"], { ...cliEnv(fx.server.baseURL), OPENAI_API_KEY: "" });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("OPENAI_API_KEY is not set");
    const badURL = await cli(["hi"], cliEnv("localhost:8080"));
    expect(badURL.code).toBe(2);
    expect(badURL.stderr).toContain("OPENAI_BASE_URL must be an http(s) URL");
    const noPrompt = await cli([]);
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stderr).toContain("no prompt given");
    expect(fx.server.requests).toHaveLength(requestsBefore);
  });

  it("--help prints the usage with the exit codes and exits 0", async () => {
    const run = await cli(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("--max-turns N");
    expect(run.stdout).toContain("130 interrupted");
    expect(run.stdout).toContain("141 stdout or stderr closed by its reader");
  });

  it("missing or stale schemas stop with 'run npm run gen' (exit 5) before any request", async () => {
    const requestsBefore = fx.server.requests.length;
    const missing = await runCliInProcess(["--schemas", path.join(fx.dir, "nope.json"), "hi"], cliEnv(fx.server.baseURL), fx.dir);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain("run npm run gen");

    const staleDir = tempDir();
    const toolsDir = path.join(staleDir, "tools");
    for (const tool of ["echo.ts", "fail.ts"]) cpSync(path.resolve(import.meta.dirname, "fixtures/tools", tool), path.join(toolsDir, tool));
    const staleSchemas = writeFixtureSchemas(staleDir, toolsDir);
    appendFileSync(path.join(toolsDir, "echo.ts"), "\n// changed after generation\n");
    const stale = await runCliInProcess(["--schemas", staleSchemas, "hi"], cliEnv(fx.server.baseURL), fx.dir);
    expect(stale.code).toBe(5);
    expect(stale.stderr).toContain("out of date");
    expect(stale.stderr).toMatch(/run npm run gen/i);
    expect(fx.server.requests).toHaveLength(requestsBefore);
  });

  it("--transcript refuses a file that already holds a conversation", async () => {
    const file = path.join(fx.dir, "taken.jsonl");
    writeFileSync(file, '{"role":"user","content":"x"}\n');
    const run = await cli(["hi", "--transcript", file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--resume");
  });
});

describe("resume", () => {
  it("sends the file's messages unchanged plus the new prompt, and appends to the same file", async () => {
    const file = path.join(fx.dir, "resume.jsonl");
    fx.server.setScript([{ toolCalls: [{ id: "c1", name: "echo", arguments: '{"text":"1"}' }] }, { content: "first answer" }, { content: "second answer" }]);
    expect((await cli(["first", "--transcript", file])).code).toBe(0);
    const before = readTranscriptLines(file);
    const run = await cli(["--resume", file, "second"]);
    expect(run).toMatchObject({ code: 0, stdout: "second answer\n" });
    expect(lastRequestMessages()).toEqual([...before, { role: "user", content: "second" }]);
    transcriptText(file);
    expect(readTranscriptLines(file)).toEqual([...lastRequestMessages(), { role: "assistant", content: "second answer" }]);
  });

  it("ignores a torn last line with a warning and starts new lines on a fresh line", async () => {
    const file = path.join(fx.dir, "torn.jsonl");
    fx.server.setScript([{ content: "one" }, { content: "two" }, { content: "three" }]);
    await cli(["first", "--transcript", file]);
    const complete = readTranscriptLines(file);
    appendFileSync(file, '{"role":"user","content":"half a li');
    const run = await cli(["--resume", file, "second"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("warning:");
    expect(run.stderr).toContain("ignored an incomplete line");
    expect(lastRequestMessages()).toEqual([...complete, { role: "user", content: "second" }]);
    const lines = transcriptText(file).split("\n");
    expect(lines[complete.length]).toBe('{"role":"user","content":"half a li');
    expect(JSON.parse(lines[complete.length + 1] ?? "")).toEqual({ role: "user", content: "second" });
    // A second resume reads past the old torn line again.
    expect((await cli(["--resume", file, "third"])).stdout).toBe("three\n");
  });

  it("answers tool calls left without results (killed mid-tool) as interrupted, in the file too", async () => {
    const file = path.join(fx.dir, "mid-tool.jsonl");
    const calls = [
      { id: "k1", type: "function", function: { name: "echo", arguments: '{"text":"a"}' } },
      { id: "k2", type: "function", function: { name: "echo", arguments: '{"text":"b"}' } },
    ];
    const prefix = [
      { role: "system", content: "sys" },
      { role: "user", content: "do two things" },
      { role: "assistant", content: null, tool_calls: calls },
      { role: "tool", tool_call_id: "k1", content: "echo: a" },
    ];
    writeFileSync(file, prefix.map((m) => `${JSON.stringify(m)}\n`).join(""));
    fx.server.setScript([{ content: "resumed" }]);
    const run = await cli(["--resume", file, "go on"]);
    expect(run).toMatchObject({ code: 0, stdout: "resumed\n" });
    expect(run.stderr).toContain('answered as "interrupted"');
    const interrupted = { role: "tool", tool_call_id: "k2", content: INTERRUPTED_TOOL_RESULT };
    expect(lastRequestMessages()).toEqual([...prefix, interrupted, { role: "user", content: "go on" }]);
    expect(readTranscriptLines(file)).toEqual([...prefix, interrupted, { role: "user", content: "go on" }, { role: "assistant", content: "resumed" }]);
  });

  it("refuses a resume file with a complete line that is not a chat message", async () => {
    const file = path.join(fx.dir, "bad.jsonl");
    writeFileSync(file, '{"role":"wizard","content":"x"}\n');
    const run = await cli(["--resume", file, "go"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown role "wizard"');
  });
});
