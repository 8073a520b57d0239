/**
 * Approval on a real terminal (pseudo-terminal.ts).
 * Each answer is typed only after its question has appeared, so nothing depends on timing: a refusal
 * with a reason, an answer that asks again, a yes, an "always" that covers the later calls of that tool.
 */
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import type { ChatMessage } from "../../src/runtime/loop/messages.js";
import { cliEnv, SENTINEL_KEY, tempDir } from "./support.js";
import { agentOnTerminal, hasScript } from "./pseudo-terminal.js";
import { useBuiltInTools } from "../tools/file-tools-support.js";

const tools = useBuiltInTools();
const onTerminal = (argv: string[]) => agentOnTerminal(["--schemas", tools.schemas(), ...argv], cliEnv(tools.server().baseURL));

it.skipIf(!hasScript)("asks one call at a time with its diff; n with a reason, y after an answer that asks again, a for the rest of the process", async () => {
  const ws = tempDir();
  writeFileSync(path.join(ws, "notes.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nseven\n");
  tools.server().setScript([
    {
      toolCalls: [
        { id: "c1", name: "write_file", arguments: '{"path":"new.txt","content":"hello\\nworld\\n"}' },
        { id: "c2", name: "edit_file", arguments: '{"path":"notes.txt","old_text":"four","new_text":"FOUR"}' },
        { id: "c3", name: "write_file", arguments: '{"path":"b.txt","content":"b\\n"}' },
        { id: "c4", name: "read_file", arguments: '{"path":"notes.txt"}' },
      ],
    },
    { toolCalls: [{ id: "c5", name: "write_file", arguments: '{"path":"c.txt","content":"c\\n"}' }] },
    { content: "all done" },
  ]);
  const term = onTerminal(["--workspace", ws, "change things"]);
  await term.until(() => term.count("Run write_file?") >= 1);
  term.child.stdin.write("n not that name\r");
  await term.until(() => term.count("Run edit_file?") >= 1);
  term.child.stdin.write("maybe\r");
  await term.until(() => term.count("Run edit_file?") >= 2);
  term.child.stdin.write("y\r");
  await term.until(() => term.count("Run write_file?") >= 2);
  term.child.stdin.write("a\r");
  expect(await term.exited).toBe(0);

  const screen = term.screen();
  expect(screen).toContain("all done");
  expect(term.count("Run write_file?")).toBe(2);
  // The new file shown whole, the edit with 3 lines of context.
  expect(screen.replace(/\r\n/g, "\n")).toContain('approval needed: write_file({"path":"new.txt","content":"hello\\nworld\\n"})\n--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n');
  expect(screen.replace(/\r\n/g, "\n")).toContain("--- a/notes.txt\n+++ b/notes.txt\n@@ -1,7 +1,7 @@\n one\n two\n three\n-four\n+FOUR\n five\n six\n seven\n");
  expect(screen).not.toContain(SENTINEL_KEY);

  const history = (tools.server().requests.at(-1)?.body?.messages ?? []) as ChatMessage[];
  const results = Object.fromEntries(history.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]));
  expect(results).toEqual({
    c1: "The user did not approve this call to write_file, so it was not run. Reason: not that name",
    c2: 'edited "notes.txt": 1 replacement, on line 4.',
    c3: 'created "b.txt": 2 bytes, 1 line.',
    c4: expect.any(String),
    c5: 'created "c.txt": 2 bytes, 1 line.',
  });
  expect(existsSync(path.join(ws, "new.txt"))).toBe(false);
  expect(readFileSync(path.join(ws, "notes.txt"), "utf8")).toContain("FOUR");
}, 60_000);

it.skipIf(!hasScript)("an empty answer refuses; end of input refuses the rest; Ctrl-C at the question interrupts the run (130)", async () => {
  const ws = tempDir();
  tools.server().setScript([
    { toolCalls: [{ id: "e1", name: "write_file", arguments: '{"path":"a.txt","content":"a"}' }, { id: "e2", name: "write_file", arguments: '{"path":"b.txt","content":"b"}' }] },
    { content: "refused both" },
  ]);
  const term = onTerminal(["--workspace", ws, "write"]);
  await term.until(() => term.count("Run write_file?") >= 1);
  term.child.stdin.write("\r");
  await term.until(() => term.count("Run write_file?") >= 2);
  term.child.stdin.write("\u0004");
  expect(await term.exited).toBe(0);
  const history = (tools.server().requests.at(-1)?.body?.messages ?? []) as ChatMessage[];
  expect(history.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
    "The user did not approve this call to write_file, so it was not run.",
    "The user did not approve this call to write_file, so it was not run.",
  ]);

  tools.server().setScript([{ toolCalls: [{ id: "i1", name: "write_file", arguments: '{"path":"a.txt","content":"a"}' }] }, { content: "never" }]);
  const interrupted = onTerminal(["--workspace", ws, "write"]);
  await interrupted.until(() => interrupted.count("Run write_file?") >= 1);
  interrupted.child.stdin.write("\u0003");
  expect(await interrupted.exited).toBe(130);
  expect(existsSync(path.join(ws, "a.txt"))).toBe(false);
}, 60_000);

it.skipIf(!hasScript)("in the chat: the question is answered on the chat's own line, never taken for a prompt; always lasts the whole chat", async () => {
  const ws = tempDir();
  tools.server().setScript([
    { toolCalls: [{ id: "t1", name: "write_file", arguments: '{"path":"one.txt","content":"1\\n"}' }] },
    { content: "wrote one" },
    { toolCalls: [{ id: "t2", name: "write_file", arguments: '{"path":"two.txt","content":"2\\n"}' }] },
    { content: "wrote two" },
  ]);
  const term = onTerminal(["--workspace", ws]);
  const prompts = () => term.count("> ");
  await term.until(() => prompts() >= 1);
  term.child.stdin.write("write one\r");
  await term.until(() => term.count("Run write_file?") >= 1);
  term.child.stdin.write("a\r");
  await term.until(() => term.count("wrote one") >= 1 && prompts() >= 2);
  term.child.stdin.write("write two\r");
  await term.until(() => term.count("wrote two") >= 1);
  term.child.stdin.write("\u0004");
  expect(await term.exited).toBe(0);
  expect(term.count("Run write_file?")).toBe(1);
  expect(readFileSync(path.join(ws, "one.txt"), "utf8")).toBe("1\n");
  expect(readFileSync(path.join(ws, "two.txt"), "utf8")).toBe("2\n");
  const userPrompts = (tools.server().requests.at(-1)?.body?.messages as ChatMessage[]).filter((m) => m.role === "user").map((m) => m.content);
  expect(userPrompts).toEqual(["write one", "write two"]);
}, 60_000);
