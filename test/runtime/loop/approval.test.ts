/**
 * The library's approval: `createAgent({ approve })` is asked after `beforeToolCall` and validation, with
 * the validated call, the tool's annotations and the file tools' diff; its answer decides; without it a
 * call that needs approval is refused; events report each request and decision. And the rule itself:
 * which tools need approval, for local tools and for tools from elsewhere.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent, type ApprovalInfo } from "../../../src/runtime/loop/agent.js";
import type { AgentEvent } from "../../../src/runtime/loop/agent-events.js";
import type { ToolCall } from "../../../src/runtime/loop/messages.js";
import { createToolExecutor } from "../../../src/runtime/execution/tool-executor.js";
import { loadSchemas } from "../../../src/runtime/execution/load-schemas.js";
import { needsApproval } from "../../../src/runtime/approval/needs-approval.js";
import { projectRoot, tempDir, writeFixtureSchemas } from "../../cli/support.js";
import { answerTurn, call, scriptedRequester, toolTurn } from "./fakes.js";

function builtInExecutor() {
  const file = writeFixtureSchemas(tempDir(), path.join(projectRoot, "tools"));
  const loaded = loadSchemas(file);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return createToolExecutor({ schemas: loaded.schemas, schemasDir: path.dirname(file) });
}

describe("which tools need approval", () => {
  it("a local tool only when tagged @destructive; a tool from elsewhere unless it says readOnlyHint: true", () => {
    expect(needsApproval({ destructiveHint: true }, "local")).toBe(true);
    expect(needsApproval(undefined, "local")).toBe(false);
    expect(needsApproval({ openWorldHint: true }, "local")).toBe(false);
    expect(needsApproval(undefined, "external")).toBe(true);
    expect(needsApproval({ destructiveHint: false }, "external")).toBe(true);
    expect(needsApproval({ readOnlyHint: true }, "external")).toBe(false);
  });
});

describe("createAgent({ approve })", () => {
  it("gets the validated call with the annotations and the diff, after beforeToolCall; its answer decides", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "a.txt"), "one\ntwo\n");
    const { requestTurn, requests } = scriptedRequester([
      toolTurn(
        call("e1", "edit_file", '{"path":"a.txt","old_text":"two","new_text":"TWO","replace_all":"false","colour":"red"}'),
        call("w1", "write_file", '{"path":"b.txt","content":"b\\n"}'),
        call("w2", "write_file", '{"path":"blocked.txt","content":"x"}'),
        call("w3", "write_file", '{"path":42}'),
      ),
      answerTurn("done"),
    ]);
    const asked: Array<[ToolCall, ApprovalInfo]> = [];
    const events: AgentEvent[] = [];
    const agent = createAgent({
      requestTurn,
      executor: builtInExecutor(),
      model: "m",
      workspace: ws,
      onEvent: (event) => events.push(event),
      beforeToolCall: (toolCall) => (toolCall.id === "w2" ? { block: "not this one" } : undefined),
      approve: async (toolCall, info) => {
        asked.push([toolCall, info]);
        return toolCall.id === "w1" ? { deny: "use another name" } : true;
      },
    });
    const result = await agent.run("edit");
    expect(result.kind).toBe("answer");
    expect(asked.map(([toolCall]) => toolCall)).toEqual([
      { id: "e1", type: "function", function: { name: "edit_file", arguments: '{"path":"a.txt","old_text":"two","new_text":"TWO","replace_all":false}' } },
      { id: "w1", type: "function", function: { name: "write_file", arguments: '{"path":"b.txt","content":"b\\n"}' } },
    ]);
    const [, info] = asked[0] ?? [];
    expect(info).toMatchObject({ turn: 1, annotations: { destructiveHint: true, openWorldHint: false } });
    expect(info?.preview).toBe("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO");
    expect(asked[1]?.[1].preview).toBe("--- a/b.txt\n+++ b/b.txt\n@@ -0,0 +1,1 @@\n+b");
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("one\nTWO\n");
    expect(existsSync(path.join(ws, "b.txt"))).toBe(false);
    const results = requests[1]?.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results?.[0]).toMatch(/^\[ignored unknown arguments: colour\]\n\[converted arguments: replace_all from string "false" to false\]\nedited "a.txt"/);
    expect(results?.slice(1, 3)).toEqual([
      "The user did not approve this call to write_file, so it was not run. Reason: use another name",
      "Tool call blocked: not this one",
    ]);
    expect(results?.[3]).toMatch(/^The arguments for write_file do not match its parameters, so it was not run:/);
    expect(events.filter((e) => e.type === "approval_requested" || e.type === "approval_decided").map((e) => [e.type, e.call.id, "approved" in e ? e.approved : undefined])).toEqual([
      ["approval_requested", "e1", undefined],
      ["approval_decided", "e1", true],
      ["approval_requested", "w1", undefined],
      ["approval_decided", "w1", false],
    ]);
  });

  it("without approve, a call that needs approval is refused and one that does not runs", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "a.txt"), "a\n");
    const { requestTurn, requests } = scriptedRequester([
      toolTurn(call("w1", "write_file", '{"path":"b.txt","content":"b"}'), call("r1", "read_file", '{"path":"a.txt"}')),
      answerTurn("done"),
    ]);
    const agent = createAgent({ requestTurn, executor: builtInExecutor(), model: "m", workspace: ws });
    await agent.run("go");
    expect(requests[1]?.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "The user did not approve this call to write_file, so it was not run.",
      "a\n",
    ]);
  });

  it("asks nothing for a call the tool would refuse, and answers it with the refusal", async () => {
    const ws = tempDir();
    const { requestTurn, requests } = scriptedRequester([toolTurn(call("w1", "write_file", '{"path":"../out.txt","content":"b"}')), answerTurn("done")]);
    let asked = 0;
    const agent = createAgent({ requestTurn, executor: builtInExecutor(), model: "m", workspace: ws, approve: () => ((asked += 1), true) });
    await agent.run("go");
    expect(asked).toBe(0);
    expect(requests[1]?.messages.at(-1)?.content).toMatch(/^The path "\.\.\/out\.txt" is outside the workspace/);
  });

  it("a throwing approve refuses the call, saying the hook failed", async () => {
    const { requestTurn, requests } = scriptedRequester([toolTurn(call("w1", "write_file", '{"path":"b.txt","content":"b"}')), answerTurn("done")]);
    const agent = createAgent({
      requestTurn, executor: builtInExecutor(), model: "m", workspace: tempDir(),
      approve: () => {
        throw new Error("boom");
      },
    });
    await agent.run("go");
    expect(requests[1]?.messages.at(-1)?.content).toBe("The user did not approve this call to write_file, so it was not run. Reason: the approval hook failed (Error: boom)");
  });
});
