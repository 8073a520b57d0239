/**
 * Only input typed after an approval question was shown answers it (pseudo-terminal.ts): a line typed
 * while the model works, or pasted ahead with the prompt in the chat, is dropped with one line saying so,
 * and never approves a write nor runs as a prompt. Each line is typed once what it follows has appeared;
 * the model's reply is held back long enough for the typed-ahead line to reach the terminal first.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import type { ChatMessage } from "../../src/runtime/loop/messages.js";
import type { RecordedRequest } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, tempDir } from "./support.js";
import { agentOnTerminal, hasScript } from "./pseudo-terminal.js";
import { useBuiltInTools } from "../tools/file-tools-support.js";

const tools = useBuiltInTools();
const onTerminal = (argv: string[]) => agentOnTerminal(["--schemas", tools.schemas(), ...argv], cliEnv(tools.server().baseURL));
const question = "Run write_file?";
const resultsRead = () =>
  ((tools.server().requests.at(-1)?.body?.messages ?? []) as ChatMessage[]).filter((m) => m.role === "tool").map((m) => m.content);

it.skipIf(!hasScript)("with a prompt on the command line, a y typed while the model works does not approve the write", async () => {
  const ws = tempDir();
  tools.server().setScript([
    { toolCalls: [{ id: "t1", name: "write_file", arguments: '{"path":"one.txt","content":"1\\n"}' }], delayMs: 3000 },
    { content: "done" },
  ]);
  const term = onTerminal(["--workspace", ws, "write one"]);
  await term.until(() => term.count("turn 1") >= 1);
  term.child.stdin.write("y\r");
  await term.until(() => term.count(question) >= 1);
  // The terminal echoed the y before the question was shown: it was typed ahead of it.
  const echoed = term.screen().indexOf("\ny\r\n");
  expect(echoed).toBeGreaterThan(-1);
  expect(echoed).toBeLessThan(term.screen().indexOf(question));
  expect(term.screen()).toContain("1 line typed before the question was ignored: not taken as its answer, not run as a prompt. Type the answer now.");
  term.child.stdin.write("n\r");
  expect(await term.exited).toBe(0);
  expect(existsSync(path.join(ws, "one.txt"))).toBe(false);
  expect(resultsRead()).toEqual(["The user did not approve this call to write_file, so it was not run."]);
}, 60_000);

/**
 * The chat on a terminal, `typed` pasted at its first prompt (a prompt asking for a write, then more):
 * once the question shows, the screen must say `ignored`; Enter then refuses the write and Ctrl-D ends
 * the chat. Gives the requests the scripted model received meanwhile, for more checks.
 */
async function pasteAheadInTheChat(typed: string, ignored: string): Promise<RecordedRequest[]> {
  const ws = tempDir();
  tools.server().setScript([
    { toolCalls: [{ id: "t1", name: "write_file", arguments: '{"path":"one.txt","content":"1\\n"}' }], delayMs: 1500 },
    { content: "not written" },
  ]);
  const earlier = tools.server().requests.length;
  const term = onTerminal(["--workspace", ws]);
  await term.until(() => term.count("> ") >= 1);
  term.child.stdin.write(typed);
  await term.until(() => term.count(question) >= 1);
  expect(term.screen()).toContain(ignored);
  term.child.stdin.write("\r");
  await term.until(() => term.count("not written") >= 1 && term.count("> ") >= 2);
  term.child.stdin.write("\u0004");
  expect(await term.exited).toBe(0);
  expect(existsSync(path.join(ws, "one.txt"))).toBe(false);
  expect(resultsRead()).toEqual(["The user did not approve this call to write_file, so it was not run."]);
  return tools.server().requests.slice(earlier);
}

it.skipIf(!hasScript)("in the chat, lines pasted with the prompt neither answer its approval nor run as prompts", async () => {
  const requests = await pasteAheadInTheChat("write one\ry\rand then this\r", "2 lines typed before the question were ignored: not taken as its answer, not run as a prompt. Type the answer now.");
  expect(requests).toHaveLength(2);
  const prompts = (requests.at(-1)?.body?.messages as ChatMessage[]).filter((m) => m.role === "user").map((m) => m.content);
  expect(prompts).toEqual(["write one"]);
}, 60_000);

it.skipIf(!hasScript)("in the chat, a y pasted without Enter is dropped too, so Enter after the question refuses", async () => {
  await pasteAheadInTheChat("write one\ry", "1 line typed before the question was ignored: not taken as its answer, not run as a prompt. Type the answer now.");
}, 60_000);
