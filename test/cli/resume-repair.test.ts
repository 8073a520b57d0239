/**
 * `--resume` with hostile transcript files: each is repaired into a history the strict scripted server
 * accepts (it answers any violation with a 400, which would be exit 3), stderr says what was repaired,
 * and the request holds exactly the repaired history plus the new prompt.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, expect, it } from "vitest";
import { INTERRUPTED_TOOL_RESULT } from "../../src/runtime/loop/interrupted-tool-calls.js";
import { cliEnv, runCliInProcess, useCliFixture, type CliRun } from "./support.js";

const fx = useCliFixture();
beforeEach(() => fx.server.setScript([{ content: "resumed" }]));

const system = { role: "system", content: "sys" };
const ask = { role: "user", content: "do things" };
const prompt = { role: "user", content: "go on" };
const toolCall = (id: string) => ({ id, type: "function", function: { name: "echo", arguments: `{"text":"${id}"}` } });
const calls = (...ids: string[]) => ({ role: "assistant", content: null, tool_calls: ids.map(toolCall) });
const result = (id: string) => ({ role: "tool", tool_call_id: id, content: `echo: ${id}` });
const interrupted = (id: string) => ({ role: "tool", tool_call_id: id, content: INTERRUPTED_TOOL_RESULT });
const answer = (content: string) => ({ role: "assistant", content });

/** Resumes a file holding `text`; the run must answer, its request accepted by the strict server. */
async function resume(name: string, text: string): Promise<{ run: CliRun; sent: unknown[] }> {
  const file = path.join(fx.dir, name);
  writeFileSync(file, text);
  const before = fx.server.requests.length;
  const run = await runCliInProcess(["--schemas", fx.schemas, "--resume", file, "go on"], cliEnv(fx.server.baseURL), fx.dir);
  fx.outputs.push(run.stdout, run.stderr);
  const request = fx.server.requests[before];
  expect(request?.violations).toEqual([]);
  expect(run).toMatchObject({ code: 0, stdout: "resumed\n" });
  return { run, sent: request?.body?.messages as unknown[] };
}

const lines = (...messages: unknown[]) => messages.map((message) => `${JSON.stringify(message)}\n`).join("");

it("a leading byte-order mark: the first line is kept, not dropped as a torn write", async () => {
  const { run, sent } = await resume("bom.jsonl", `\uFEFF${lines(system, ask, answer("ok"))}`);
  expect(sent).toEqual([system, ask, answer("ok"), prompt]);
  expect(run.stderr).toContain("ignored the byte-order mark at its start");
  expect(run.stderr).not.toContain("incomplete line");
});

it("a corrupt line in the middle took the assistant message: its orphaned results are dropped", async () => {
  const text = `${lines(system, ask)}{"role":"assistant","content":null,"tool_ca\n${lines(result("a"), result("b"), answer("ok"))}`;
  const { run, sent } = await resume("orphans.jsonl", text);
  expect(sent).toEqual([system, ask, answer("ok"), prompt]);
  expect(run.stderr).toContain("ignored an incomplete line");
  expect(run.stderr).toContain('repaired for a strict API: dropped 2 tool results answering no tool call of the assistant message before it: "a", "b"');
});

it("out-of-order, unknown-id and second results; calls left unanswered before the next message", async () => {
  const text = lines(system, ask, calls("a", "b", "c"), result("c"), result("x"), result("a"), result("a"), answer("half"), calls("d"), ask);
  const { run, sent } = await resume("disorder.jsonl", text);
  expect(sent).toEqual([system, ask, calls("a", "b", "c"), result("a"), interrupted("b"), result("c"), answer("half"), calls("d"), interrupted("d"), ask, prompt]);
  for (const repair of [
    'dropped 1 tool result answering no tool call of the assistant message before it: "x"',
    'dropped 1 second result for a tool call already answered: "a"',
    "put the tool results of 1 assistant message back in call order",
    'answered 2 tool calls left without a result as interrupted: "b", "d"',
  ]) {
    expect(run.stderr).toContain(repair);
  }
});

it("fields the API does not take (name, refusal, parsed, a tool call's index) are stripped", async () => {
  const text = lines(
    { ...system, name: "boss" },
    { ...ask, name: "me" },
    { ...calls("a"), refusal: null, parsed: null, tool_calls: [{ ...toolCall("a"), index: 0 }] },
    { ...result("a"), name: "echo" },
    { ...answer("ok"), refusal: null, annotations: [] },
  );
  const { run, sent } = await resume("fields.jsonl", text);
  expect(sent).toEqual([system, ask, calls("a"), result("a"), answer("ok"), prompt]);
  expect(run.stderr).toContain("removed fields the API does not take: name (3×), refusal (2×), parsed (1×), tool_calls[].index (1×), annotations (1×)");
});

it("killed mid-tool with results out of order: the gap is filled in place, the tail answered and written to the file", async () => {
  const { sent } = await resume("tail.jsonl", lines(system, ask, calls("a", "b", "c", "d"), result("c"), result("a")));
  expect(sent).toEqual([system, ask, calls("a", "b", "c", "d"), result("a"), interrupted("b"), result("c"), interrupted("d"), prompt]);
});
