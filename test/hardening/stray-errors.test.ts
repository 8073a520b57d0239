/**
 * A tool that leaves a rejected promise or a throwing timer behind (`void Promise.reject(…); return
 * "saved"`) does not end the run: the real MCP server answers every call and keeps serving, the real
 * agent finishes with its answer (exit 0), and each late error is one stderr line with its message and
 * the tool's name, never a stack trace or the tool's source.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, spawnCli } from "../cli/support.js";
import { initializeRaw, resultText, spawnRaw, until } from "../mcp/support.js";
import { toolFolder } from "./support.js";

const TOOLS = {
  "save.ts": [
    "/** Saves, forgetting to await a failing write. */",
    "export function save(): string {",
    '  void Promise.reject(new Error("the write failed"));',
    '  return "saved";',
    "}",
    "",
    "/** Answers, leaving a timer that throws. */",
    "export function later(): string {",
    '  setTimeout(() => { throw new Error("the timer broke"); }, 5);',
    '  return "later";',
    "}",
    "",
    "/** Waits a while, so that a call is in flight while another's late error fires. */",
    "export async function slow(): Promise<string> {",
    "  await new Promise((resolve) => setTimeout(resolve, 300));",
    '  return "slow done";',
    "}",
    "",
  ].join("\n"),
};

const server = await startScriptedServer({ script: [] });
afterAll(() => server.close());

describe("a tool's late error is one line and the run goes on", () => {
  it("the MCP server answers the call, the call in flight and the next, and says one line per late error", async () => {
    const folder = toolFolder(TOOLS);
    const run = spawnRaw(["--workspace", folder.dir, "--schemas", folder.schemas]);
    await initializeRaw(run);
    const slow = run.request(1, "tools/call", { name: "slow", arguments: {} });
    expect(resultText((await run.request(2, "tools/call", { name: "save", arguments: {} })).result as object)).toBe("saved");
    expect(resultText((await run.request(3, "tools/call", { name: "later", arguments: {} })).result as object)).toBe("later");
    expect(resultText((await slow).result as object)).toBe("slow done");
    await until(() => run.stderr().includes("the timer broke"));
    // No call is in flight now: the late error still names its tool.
    expect(resultText((await run.request(4, "tools/call", { name: "save", arguments: {} })).result as object)).toBe("saved");
    await until(() => run.stderr().split("the write failed").length === 3);
    const lines = run.stderr().split("\n").filter((line) => line.startsWith("warning:"));
    expect(lines).toEqual([
      "warning: tool save failed after its call was answered (a promise it did not await, or a timer): Error: the write failed; carrying on",
      "warning: tool later failed after its call was answered (a promise it did not await, or a timer): Error: the timer broke; carrying on",
      "warning: tool save failed after its call was answered (a promise it did not await, or a timer): Error: the write failed; carrying on",
    ]);
    expect(run.stderr()).not.toMatch(/\n\s+at /);
    run.child.stdin.end();
    expect((await run.exit).code).toBe(0);
  });

  it("the agent gets its answer (exit 0) with the late errors as warning lines", async () => {
    const folder = toolFolder(TOOLS);
    server.setScript([
      { toolCalls: [{ id: "call_1", name: "save", arguments: "{}" }, { id: "call_2", name: "later", arguments: "{}" }] },
      { toolCalls: [{ id: "call_3", name: "slow", arguments: "{}" }] },
      { content: "all saved" },
    ]);
    const run = await spawnCli(["--schemas", folder.schemas, "--workspace", folder.dir, "--no-stream", "save it"], cliEnv(server.baseURL), folder.dir).done;
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("all saved\n");
    expect(run.stderr).toContain("warning: tool save failed after its call was answered (a promise it did not await, or a timer): Error: the write failed; carrying on\n");
    expect(run.stderr).toContain("warning: tool later failed after its call was answered (a promise it did not await, or a timer): Error: the timer broke; carrying on\n");
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stderr).not.toContain("Promise.reject");
  });
});
