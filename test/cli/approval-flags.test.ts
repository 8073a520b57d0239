/**
 * Approval through the real CLI without a terminal: a call that needs approval is refused unless
 * `--allow` names its tool (or `*`), the model reads the refusal and the run goes on; `--read-only`
 * offers no such tool; the transcript records each decision and a resume never asks again.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/runtime/loop/messages.js";
import { cliEnv, projectRoot, runCliInProcess, tempDir, writeFixtureSchemas } from "./support.js";
import { useBuiltInTools } from "../tools/file-tools-support.js";
import { startScriptedServer } from "../../src/scripted-server/scripted-server.js";

const tools = useBuiltInTools();
const write = (file: string, content = "new\n") => ({ name: "write_file", args: { path: file, content } });
const edit = (file: string) => ({ name: "edit_file", args: { path: file, old_text: "old", new_text: "new" } });

describe("approval without a terminal", () => {
  it("refuses every call that needs approval, tells the model so exactly, and the run goes on", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "a.txt"), "old\n");
    const run = await tools.run(ws, [write("b.txt"), edit("a.txt"), { name: "read_file", args: { path: "a.txt" } }], []);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("done\n");
    expect(run.results).toEqual([
      "The user did not approve this call to write_file, so it was not run.",
      "The user did not approve this call to edit_file, so it was not run.",
      "old\n",
    ]);
    expect(existsSync(path.join(ws, "b.txt"))).toBe(false);
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("old\n");
    expect(run.stderr).toContain("write_file needs approval, and there is no terminal to ask on: not run (--allow write_file runs it without asking)");
  });

  it("--allow runs the tools it names (repeatable, comma-separated, *) and no other", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "a.txt"), "old\n");
    const one = await tools.run(ws, [write("b.txt"), edit("a.txt")], ["--allow", "write_file"]);
    expect(one.results).toEqual(['created "b.txt": 4 bytes, 1 line.', "The user did not approve this call to edit_file, so it was not run."]);
    const both = await tools.run(ws, [write("c.txt"), edit("a.txt")], ["--allow", "write_file,edit_file"]);
    expect(both.results).toEqual(['created "c.txt": 4 bytes, 1 line.', 'edited "a.txt": 1 replacement, on line 1.']);
    const repeated = await tools.run(ws, [write("d.txt"), edit("a.txt")], ["--allow", "edit_file", "--allow=write_file"]);
    expect(repeated.results[0]).toBe('created "d.txt": 4 bytes, 1 line.');
    const all = await tools.run(ws, [write("e.txt")], ["--allow", "*"]);
    expect(all.results).toEqual(['created "e.txt": 4 bytes, 1 line.']);
    expect(all.stderr).not.toContain("warning");
  });

  it("warns once for an --allow that names no offered tool", async () => {
    const ws = tempDir();
    const run = await tools.run(ws, [write("b.txt")], ["--allow", "writefile", "--allow", "writefile,write_file"]);
    expect(run.results).toEqual(['created "b.txt": 4 bytes, 1 line.']);
    expect(run.stderr.split("\n").filter((line) => line.startsWith("warning: --allow writefile names no offered tool"))).toHaveLength(1);
  });

  it("--read-only offers no tool that needs approval; a call to one is a call to an unknown tool", async () => {
    const ws = tempDir();
    const run = await tools.run(ws, [write("b.txt")], ["--read-only"]);
    expect(run.results).toEqual(['There is no tool named "write_file". Available tools: get_time, list_files, read_file.']);
    expect(existsSync(path.join(ws, "b.txt"))).toBe(false);
  });

  it("--read-only with --allow is a usage error (exit 2)", async () => {
    const run = await runCliInProcess(["--read-only", "--allow", "write_file", "hi"], cliEnv("http://127.0.0.1:9/v1"));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("error: --read-only offers no tool that needs approval, so there is nothing for --allow to allow; drop one of them");
  });
});

describe("approval decisions in the transcript", () => {
  it("records asked and decided; a resume answers a call still waiting for approval as never started", async () => {
    const server = await startScriptedServer({ script: [] });
    try {
      const dir = tempDir();
      const schemas = writeFixtureSchemas(dir, path.join(projectRoot, "tools"));
      const transcript = path.join(dir, "t.jsonl");
      const workspace = tempDir();
      server.setScript([{ toolCalls: [{ id: "w1", name: "write_file", arguments: '{"path":"x.txt","content":"x"}' }] }, { content: "ok" }]);
      const first = await runCliInProcess(["--schemas", schemas, "--workspace", workspace, "--transcript", transcript, "go"], cliEnv(server.baseURL));
      expect(first.code).toBe(0);
      const lines = readFileSync(transcript, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.filter((line) => "approval" in line)).toEqual([
        { approval: { tool_call_id: "w1", tool: "write_file", state: "asked" } },
        { approval: { tool_call_id: "w1", tool: "write_file", state: "denied" } },
      ]);

      // A process killed while the question was open: the call's request is the file's last line.
      const killed = path.join(dir, "killed.jsonl");
      const call = { id: "p1", type: "function", function: { name: "write_file", arguments: '{"path":"y.txt","content":"y"}' } };
      const denied = { id: "p2", type: "function", function: { name: "edit_file", arguments: '{"path":"y.txt","old_text":"a","new_text":"b"}' } };
      const ran = { id: "p3", type: "function", function: { name: "write_file", arguments: '{"path":"z.txt","content":"z"}' } };
      writeFileSync(killed, [
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [call, denied, ran] },
        { approval: { tool_call_id: "p2", tool: "edit_file", state: "asked" } },
        { approval: { tool_call_id: "p2", tool: "edit_file", state: "denied", reason: "not now" } },
        { approval: { tool_call_id: "p3", tool: "write_file", state: "asked" } },
        { approval: { tool_call_id: "p3", tool: "write_file", state: "approved" } },
        { approval: { tool_call_id: "p1", tool: "write_file", state: "asked" } },
      ].map((line) => JSON.stringify(line)).join("\n") + "\n");
      server.setScript([{ content: "resumed" }]);
      const resumed = await runCliInProcess(["--schemas", schemas, "--workspace", workspace, "--resume", killed, "and now?"], cliEnv(server.baseURL));
      expect(resumed.code).toBe(0);
      const sent = (server.requests.at(-1)?.body?.messages ?? []) as ChatMessage[];
      expect(sent.filter((message) => message.role === "tool").map((message) => [message.tool_call_id, message.content])).toEqual([
        ["p1", "Not run: the agent was stopped while this call waited for the user's approval, so it never started. Call it again if it is still needed."],
        ["p2", "The user did not approve this call to edit_file, so it was not run. Reason: not now"],
        ["p3", expect.stringMatching(/^Interrupted: .* It may or may not have run/)],
      ]);
      expect(existsSync(path.join(workspace, "y.txt"))).toBe(false);
    } finally {
      await server.close();
    }
  });
});
