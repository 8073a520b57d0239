/**
 * Long conversations through the CLI, the real SDK and the strict scripted server with a context limit:
 * the endpoint's "too long" refusal (OpenAI's shape, and LM Studio's wording) leads to compaction and a
 * strictly smaller resend; a known window compacts before sending; the transcript keeps the originals and
 * a resume continues from the compacted history; what cannot fit ends with exit 6.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { runInteractive } from "../../src/cli/interactive.js";
import { createProgressReporter } from "../../src/cli/progress-reporter.js";
import { isSummary } from "../../src/runtime/compaction/history-parts.js";
import { createAgent } from "../../src/runtime/loop/agent.js";
import type { ChatMessage } from "../../src/runtime/loop/messages.js";
import { readTranscript } from "../../src/runtime/loop/transcript.js";
import { createTurnRequester } from "../../src/runtime/model/model-client.js";
import { requestSize, type ContextLimit } from "../../src/scripted-server/context-limit.js";
import { startScriptedServer, type RecordedRequest, type Script, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { fakeExecutor } from "../runtime/loop/fakes.js";
import { cliEnv, projectRoot, runCliInProcess, SENTINEL_KEY, tempDir, writeFixtureSchemas } from "./support.js";

const FILE_CHARS = 40_000;
const servers: ScriptedServer[] = [];
const schemas = writeFixtureSchemas(tempDir(), path.join(projectRoot, "tools"));

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function server(script: Script, contextLimit: ContextLimit): Promise<ScriptedServer> {
  const started = await startScriptedServer({ script, contextLimit });
  servers.push(started);
  return started;
}

function workspaceWithFiles(names: string[]): string {
  const dir = tempDir();
  for (const name of names) writeFileSync(path.join(dir, name), `${name}: ${"y".repeat(FILE_CHARS - name.length - 3)}\n`);
  return dir;
}

function readCall(id: string, file: string) {
  return { toolCalls: [{ id, name: "read_file", arguments: JSON.stringify({ path: file }) }] };
}

async function runCli(target: ScriptedServer, argv: string[]) {
  const run = await runCliInProcess(["--schemas", schemas, "--no-stream", ...argv], cliEnv(target.baseURL));
  expect(`${run.stdout}${run.stderr}`).not.toContain(SENTINEL_KEY);
  return run;
}

function accepted(target: ScriptedServer): RecordedRequest[] {
  return target.requests.filter((request) => !request.refusedForLength);
}

/**
 * Within one run, every refused request is resent strictly smaller (one compaction step, one resend): the
 * next request that offers the tools, as summary requests offer none.
 */
function expectEachResendSmaller(target: ScriptedServer): void {
  const conversation = target.requests.filter((request) => request.body?.tools !== undefined);
  const sizes = conversation.map((request) => (request.body ? requestSize(request.body) : 0));
  expect(conversation.some((request) => request.refusedForLength)).toBe(true);
  conversation.forEach((request, index) => {
    if (request.refusedForLength && index + 1 < sizes.length) expect(sizes[index + 1]).toBeLessThan(sizes[index]!);
  });
}

function messagesOf(request: RecordedRequest | undefined): ChatMessage[] {
  return (request?.body?.messages ?? []) as ChatMessage[];
}

describe("reading several large files with the window unknown (OpenAI's refusal)", () => {
  it("compacts on each refusal, resends without spending a turn, answers; the transcript replays to the last request", async () => {
    const workspace = workspaceWithFiles(["a.txt", "b.txt", "c.txt", "d.txt"]);
    const transcript = path.join(workspace, "run.jsonl");
    const target = await server([readCall("r1", "a.txt"), readCall("r2", "b.txt"), readCall("r3", "c.txt"), readCall("r4", "d.txt"), { content: "four files read" }], { chars: 100_000 });

    const run = await runCli(target, ["--workspace", workspace, "--max-turns", "5", "--transcript", transcript, "read the four files"]);

    expect(run.stdout).toBe("four files read\n");
    expect(run.code).toBe(0);
    const refused = target.requests.filter((request) => request.refusedForLength);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(accepted(target)).toHaveLength(5);
    expectEachResendSmaller(target);
    expect(run.stderr).toContain("compacted the history: elided 2 older tool results (calling the tool again brings one back), because the endpoint refused the request as too long");
    for (const request of accepted(target)) expect(request.violations).toEqual([]);
    const last = messagesOf(accepted(target).at(-1));
    const results = last.filter((message) => message.role === "tool").map((message) => message.content.slice(0, 60));
    expect(results.slice(0, 2)).toEqual([
      '[result elided to fit the context window: read_file({"path":"a.txt"}) returned 40,000 c',
      '[result elided to fit the context window: read_file({"path":"b.txt"}) returned 40,000 c',
    ].map((text) => text.slice(0, 60)));
    expect(results[3]).toBe("d.txt: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy".slice(0, 60));

    const reading = readTranscript(transcript);
    expect(reading.ok && reading.messages).toEqual([...last, { role: "assistant", content: "four files read" }]);
  });

  it("with --context-window the history is compacted before sending: the endpoint refuses nothing", async () => {
    const workspace = workspaceWithFiles(["a.txt", "b.txt", "c.txt", "d.txt"]);
    const target = await server([readCall("r1", "a.txt"), readCall("r2", "b.txt"), readCall("r3", "c.txt"), readCall("r4", "d.txt"), { content: "done" }], { chars: 100_000 });

    const run = await runCli(target, ["--workspace", workspace, "--context-window", "30000", "read the four files"]);

    expect(run.stdout).toBe("done\n");
    expect(target.requests.filter((request) => request.refusedForLength)).toEqual([]);
    expect(run.stderr).toMatch(/compacted the history: elided 1 older tool result .*because the request would not fit the context window of 30000 tokens/);
    for (const request of target.requests) expect(request.violations).toEqual([]);
  });
});

describe("summarising when eliding is not enough (LM Studio's wording)", () => {
  const long = (label: string) => `${label} `.padEnd(20_000, label[0]);

  function earlierConversation(file: string): void {
    const messages: ChatMessage[] = [
      { role: "system", content: "You are terse." },
      { role: "user", content: long("question one") },
      { role: "assistant", content: long("answer one") },
      { role: "user", content: long("question two") },
      { role: "assistant", content: long("answer two") },
    ];
    writeFileSync(file, messages.map((message) => `${JSON.stringify(message)}\n`).join(""));
  }

  it("summarises the oldest stretch through the model, resends, and a resume continues from the summary", async () => {
    const dir = tempDir();
    const transcript = path.join(dir, "chat.jsonl");
    earlierConversation(transcript);
    const target = await server([{ content: "They asked two questions." }, { content: "third answer" }, { content: "fourth answer" }], { chars: 60_000, wording: "lmstudio" });

    const run = await runCli(target, ["--resume", transcript, "question three"]);

    expect(run.stdout).toBe("third answer\n");
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("compacted the history: summarised 3 older messages into one, because the endpoint refused the request as too long");
    expectEachResendSmaller(target);
    const summaryRequest = accepted(target)[0];
    expect(summaryRequest?.body?.tools).toBeUndefined();
    expect(messagesOf(summaryRequest)[1]?.content).toContain("question one");
    const resent = messagesOf(accepted(target)[1]);
    expect(resent.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(isSummary(resent[1]!)).toBe(true);
    expect(resent[1]?.content).toContain("They asked two questions.");
    expect(resent[2]?.content).toBe(long("answer two"));
    expect(resent[3]?.content).toBe("question three");

    // The originals stay in the file; the resume rebuilds the compacted history and sends it at once.
    const before = target.requests.length;
    const again = await runCli(target, ["--resume", transcript, "question four"]);
    expect(again.stdout).toBe("fourth answer\n");
    expect(target.requests.length).toBe(before + 1);
    expect(messagesOf(target.requests.at(-1))).toEqual([...resent, { role: "assistant", content: "third answer" }, { role: "user", content: "question four" }]);
  });

  it("a resumed history that no longer fits a known window is compacted before its first request", async () => {
    const dir = tempDir();
    const transcript = path.join(dir, "chat.jsonl");
    earlierConversation(transcript);
    const target = await server([{ content: "Two questions so far." }, { content: "third answer" }], { chars: 60_000, wording: "lmstudio" });

    const run = await runCli(target, ["--resume", transcript, "--context-window", "20000", "question three"]);

    expect(run.stdout).toBe("third answer\n");
    expect(target.requests.filter((request) => request.refusedForLength)).toEqual([]);
    expect(run.stderr).toContain("summarised 3 older messages into one, because the request would not fit the context window of 20000 tokens");
  });
});

describe("a conversation that cannot fit", () => {
  it("exit 6 when the prompt alone is refused as too long, after no more than one resend per step", async () => {
    const target = await server([], { chars: 5_000 });
    const run = await runCli(target, ["x".repeat(10_000)]);
    expect(run.code).toBe(6);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("Stopped: the conversation does not fit the context window (the endpoint refused it as too long)");
    expect(target.requests).toHaveLength(1);
  });

  it("exit 6 without a request when a known window cannot hold the prompt", async () => {
    const target = await server([], { chars: 1_000_000 });
    const run = await runCli(target, ["--context-window", "2000", "y".repeat(10_000)]);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("does not fit the context window of 2000 tokens");
    expect(target.requests).toHaveLength(0);
  });
});

/** The chat as `npm run agent` runs it on a terminal, in-process: one agent, the lines as prompts. */
async function chat(target: ScriptedServer, lines: string[], executor = fakeExecutor(async () => ({ status: "ok", content: "" }))) {
  let stdout = "";
  let stderr = "";
  const reporter = createProgressReporter({ write: (text: string) => (stderr += text) }, false);
  const agent = createAgent({
    requestTurn: createTurnRequester({ apiKey: "test", baseURL: target.baseURL }),
    executor,
    model: "scripted-model",
    systemPrompt: "sys",
    workspace: tempDir(),
    onEvent: reporter.onEvent,
  });
  const input = new PassThrough();
  const done = runInteractive({ agent, input, prompts: new PassThrough(), stdout: { write: (text: string) => (stdout += text) }, reporter });
  input.end(lines.map((line) => `${line}\n`).join(""));
  const code = await done;
  return { code, stdout, stderr, agent };
}

describe("the interactive chat", () => {
  it("survives prompts past the window: each refusal compacts, the chat goes on with the same agent", async () => {
    const target = await server(
      [
        { toolCalls: [{ id: "t1", name: "echo", arguments: '{"text":"1"}' }] },
        { content: "first" },
        { toolCalls: [{ id: "t2", name: "echo", arguments: '{"text":"2"}' }] },
        { content: "second" },
        { content: "third" },
      ],
      { chars: 50_000 },
    );
    const executor = fakeExecutor(async (call) => ({ status: "ok", content: `${call.id} `.padEnd(30_000, "z") }));

    const { code, stdout, stderr, agent } = await chat(target, ["one", "two", "three"], executor);

    expect(code).toBe(0);
    expect(stdout).toBe("first\nsecond\nthird\n");
    expect(stderr).toContain("compacted the history: elided 1 older tool result");
    expect(target.requests.some((request) => request.refusedForLength)).toBe(true);
    for (const request of accepted(target)) expect(request.violations).toEqual([]);
    expect(agent.messages.find((message) => message.role === "tool")?.content).toMatch(/^\[result elided to fit the context window: echo\(\{"text":"1"\}\)/);
  });

  it("a prompt too large for the window is refused with the exit-6 message, and the next prompt is answered with it summarised", async () => {
    const target = await server([{ content: "The user pasted a long run of x." }, { content: "small answer" }], { chars: 20_000 });

    const { code, stdout, stderr, agent } = await chat(target, ["x".repeat(30_000), "a small question"]);

    expect(code).toBe(0);
    expect(stdout).toBe("small answer\n");
    expect(stderr).toContain("Stopped: the conversation does not fit the context window (the endpoint refused it as too long)");
    expect(stderr).toContain("compacted the history: summarised 1 older message into one, because the endpoint refused the request as too long");
    // The first prompt is refused with nothing to compact; the second is refused, summarised, resent smaller.
    expect(target.requests.map((request) => [request.refusedForLength === true, request.body?.tools === undefined])).toEqual([
      [true, false],
      [true, false],
      [false, true],
      [false, false],
    ]);
    const sizes = target.requests.map((request) => (request.body ? requestSize(request.body) : 0));
    expect(sizes[3]).toBeLessThan(sizes[1]!);
    for (const request of accepted(target)) expect(request.violations).toEqual([]);
    expect(agent.messages.map((message) => message.role)).toEqual(["system", "user", "user", "assistant"]);
    expect(isSummary(agent.messages[1]!)).toBe(true);
    expect(agent.messages[2]?.content).toBe("a small question");
  });
});
