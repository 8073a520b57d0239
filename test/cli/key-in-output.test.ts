/**
 * The key-mask rule at the CLI (docs/secrets.md): a real-looking key never reaches stdout, stderr or the
 * transcript, not when a streamed answer splits it across deltas and not in a progress line shortened
 * after it; a placeholder key changes nothing the model, the user or the transcript sees.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, expect, it } from "vitest";
import type { ChatMessage } from "../../src/runtime/loop/messages.js";
import { expectNoPiece, projectKey } from "../support/key-pieces.js";
import { cliEnv, readTranscriptLines, runCliInProcess, useCliFixture } from "./support.js";

const fx = useCliFixture();
beforeEach(() => fx.server.setScript([]));

it.each([
  ["with colours (each delta painted on its own)", { FORCE_COLOR: "1", NO_COLOR: "" }],
  ["without colours", { NO_COLOR: "1" }],
])("a random 164-character key split across streamed deltas and in long arguments never appears, %s", async (_name, colors) => {
  const key = projectKey(156);
  expect(key).toHaveLength(164);
  const padding = "x".repeat(40);
  fx.server.setScript([
    {
      content: `Using ${key} now.`,
      toolCalls: [{ id: "c1", name: "echo", arguments: JSON.stringify({ text: `${key} ${padding}` }) }],
      stream: { chunkSize: 5 },
    },
    { content: `The key is ${key}, its end ${key.slice(-8)}.`, stream: { chunkSize: 3 } },
  ]);
  const transcript = path.join(fx.dir, `split-${colors.NO_COLOR}.jsonl`);
  const run = await runCliInProcess(["--schemas", fx.schemas, "--transcript", transcript, "say it"], cliEnv(fx.server.baseURL, { OPENAI_API_KEY: key, ...colors }), fx.dir);
  const written = readFileSync(transcript, "utf8");
  fx.outputs.push(run.stdout, run.stderr, written);

  // What the terminal shows: the colour codes around each delta are not there on the screen.
  const screen = run.stderr.replace(/\u001b\[\d+m/g, "");
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("The key is ***, its end ***.\n");
  // The call's line is shortened after masking: the masked arguments are short enough to show whole.
  expect(screen).toContain(`→ echo({"text":"*** ${padding}"})`);
  expect(screen).toContain(`← echo ok: echo: *** ${padding}`);
  expect(screen).toContain("Using *** now.");
  expect(screen).toContain("The key is ***, its end ***.");
  for (const text of [run.stdout, run.stderr, screen, written]) expectNoPiece(text, key);
  const toolMessage = readTranscriptLines(transcript).find((message: ChatMessage) => message.role === "tool");
  expect(toolMessage?.content).toBe(`echo: *** ${padding}`);
});

it("with a placeholder key made of words, answers, tool results, progress and the transcript keep every word", async () => {
  const key = "sk-no-key-required";
  const answer = "The path parameter is required; see docs/required-fields.md. The key is sk-no-key-required.";
  fx.server.setScript([
    { toolCalls: [{ id: "c1", name: "echo", arguments: JSON.stringify({ text: "required: sk-no-key-required" }) }] },
    { content: answer },
  ]);
  const transcript = path.join(fx.dir, "placeholder.jsonl");
  const run = await runCliInProcess(["--schemas", fx.schemas, "--transcript", transcript, "is it required?"], cliEnv(fx.server.baseURL, { OPENAI_API_KEY: key }), fx.dir);
  fx.outputs.push(run.stdout, run.stderr);

  expect(run).toMatchObject({ code: 0, stdout: `${answer}\n` });
  expect(run.stderr).toContain('→ echo({"text":"required: sk-no-key-required"})');
  expect(run.stderr).toContain("← echo ok: echo: required: sk-no-key-required");
  expect(run.stderr).not.toContain("***");
  const toolMessage = (fx.server.requests.at(-1)?.body?.messages as ChatMessage[]).find((message) => message.role === "tool");
  expect(toolMessage?.content).toBe("echo: required: sk-no-key-required");
  expect(readTranscriptLines(transcript).at(-1)).toEqual({ role: "assistant", content: answer });
});
