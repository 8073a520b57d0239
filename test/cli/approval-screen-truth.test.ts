/**
 * What the user approves is what is written: the screen above an approval question cannot be made to lie
 * by a hostile file name or file content (a name with a line break adding diff lines, a content line
 * dressed as a header, escape sequences or bidi controls, a single line long enough to scroll the rest
 * away), and a file that changes on disk between the screen and the write is not written with a change
 * nobody saw; what was shown reaches that one call's write only, never a later call or another agent's.
 */
import { readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { approvalScreen } from "../../src/cli/approval-prompt.js";
import { unifiedDiff } from "../../src/runtime/approval/unified-diff.js";
import { previewFileChange } from "../../src/runtime/approval/file-change-preview.js";
import { createAgent } from "../../src/runtime/loop/agent.js";
import { createToolExecutor } from "../../src/runtime/execution/tool-executor.js";
import { loadSchemas } from "../../src/runtime/execution/load-schemas.js";
import { answerTurn, call, scriptedRequester, toolTurn } from "../runtime/loop/fakes.js";
import { projectRoot, tempDir, writeFixtureSchemas } from "./support.js";

const screenOf = (name: string, args: Record<string, unknown>, preview: string, colors = false): string[] =>
  approvalScreen({ id: "c1", type: "function", function: { name, arguments: JSON.stringify(args) } }, preview, colors).split("\n");

describe("the diff's header", () => {
  it("shows a name holding a line break as one quoted line, so the name adds no line to the diff", () => {
    const name = "notes.txt\n+++ b/README.md\n@@ -1 +1 @@\n-old";
    const lines = screenOf("write_file", { path: name, content: "x\n" }, unifiedDiff(name, undefined, "x\n"));
    expect(lines.slice(1, -1)).toEqual([
      `--- ${JSON.stringify(`a/${name}`)}`,
      `+++ ${JSON.stringify(`b/${name}`)}`,
      "@@ -0,0 +1,1 @@",
      "+x",
    ]);
  });

  it("keeps a plain name as it is", () => {
    expect(unifiedDiff("src/my file.ts", undefined, "x\n").split("\n").slice(0, 2)).toEqual(["--- a/src/my file.ts", "+++ b/src/my file.ts"]);
  });

  it("has exactly two header lines for any name", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 30 }), (name) => {
        const lines = unifiedDiff(name, "a\n", "b\n").split("\n");
        expect(lines.slice(2)).toEqual(["@@ -1,1 +1,1 @@", "-a", "+b"]);
        expect(lines[0]?.startsWith("--- ")).toBe(true);
        expect(lines[1]?.startsWith("+++ ")).toBe(true);
      }),
    );
  });
});

describe("the screen", () => {
  it("colours a content line that looks like a header as the added line it is", () => {
    const preview = unifiedDiff("run.sh", "-- a/notes.txt\n", "++ b/notes.txt\n");
    expect(screenOf("write_file", { path: "run.sh", content: "" }, preview, true).slice(1, -1)).toEqual([
      "\u001b[1m--- a/run.sh\u001b[0m",
      "\u001b[1m+++ b/run.sh\u001b[0m",
      "\u001b[36m@@ -1,1 +1,1 @@\u001b[0m",
      "\u001b[31m--- a/notes.txt\u001b[0m",
      "\u001b[32m+++ b/notes.txt\u001b[0m",
    ]);
  });

  it("shows escape sequences and bidi controls of a file's name and content escaped", () => {
    const name = "a\u001b[2K\u202e.txt";
    const lines = screenOf("write_file", { path: name, content: "x" }, unifiedDiff(name, "ok\n", "ok\n\u001b[1A\u001b[2Kfine\u2066\n"));
    expect(lines.slice(1, -1)).toEqual([
      '--- "a/a\\u001b[2K\\u202e.txt"',
      '+++ "b/a\\u001b[2K\\u202e.txt"',
      "@@ -1,1 +1,2 @@",
      " ok",
      "+\\x1b[1A\\x1b[2Kfine\\u2066",
    ]);
    expect(lines[0]).toBe('approval needed: write_file({"path":"a\\u001b[2K\\u202e.txt","content":"x"})');
  });

  it("cuts a single huge line and says how much of it is left out", () => {
    const line = `echo hi${" ".repeat(100_000)}rm -rf ~`;
    const lines = screenOf("write_file", { path: "a.sh", content: "" }, unifiedDiff("a.sh", undefined, `${line}\n`));
    expect(lines[4]).toBe(`+${line.slice(0, 499)}… (${line.length + 1 - 500} more characters on this line)`);
    expect(lines.join("\n").length).toBeLessThan(2_000);
  });

  it("never splits a character of two UTF-16 units when it cuts a line", () => {
    const line = `+${"a".repeat(498)}😀😀`;
    const [, shown] = screenOf("write_file", {}, line);
    expect(shown).toBe(`+${"a".repeat(498)}… (4 more characters on this line)`);
  });
});

function builtInExecutor() {
  const file = writeFixtureSchemas(tempDir(), path.join(projectRoot, "tools"));
  const loaded = loadSchemas(file);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return createToolExecutor({ schemas: loaded.schemas, schemasDir: path.dirname(file) });
}

/** Runs one call; `meanwhile` changes the workspace while the question is open, then the user says yes. */
async function approvedWhileChanged(ws: string, name: string, args: Record<string, unknown>, meanwhile: () => void) {
  const { requestTurn, requests } = scriptedRequester([toolTurn(call("c1", name, JSON.stringify(args))), answerTurn("done")]);
  const previews: string[] = [];
  const agent = createAgent({
    requestTurn, executor: builtInExecutor(), model: "m", workspace: ws,
    approve: (_call, info) => {
      previews.push(info.preview ?? "");
      meanwhile();
      return true;
    },
  });
  await agent.run("go");
  return { previews, result: requests[1]?.messages.at(-1)?.content };
}

const changedMessage = (shown: string, tool: string) =>
  `${shown} changed after its change was shown for approval, so nothing was written: the change approved is not the one it would make now. Call ${tool} again to see the change against the file as it is now.`;

describe("a file changed between the screen and the write", () => {
  it("an edit is not applied at another place than the one shown", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "a.txt"), "keep\nfour\n");
    const { previews, result } = await approvedWhileChanged(ws, "edit_file", { path: "a.txt", old_text: "four", new_text: "FOUR" }, () => {
      writeFileSync(path.join(ws, "a.txt"), "four score\nkeep\n");
    });
    expect(previews[0]).toBe("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n keep\n-four\n+FOUR");
    expect(result).toBe(changedMessage('"a.txt"', "edit_file"));
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("four score\nkeep\n");
  });

  it("a file shown as new is not replaced when one appeared meanwhile", async () => {
    const ws = tempDir();
    const { previews, result } = await approvedWhileChanged(ws, "write_file", { path: "notes.txt", content: "new\n" }, () => {
      writeFileSync(path.join(ws, "notes.txt"), "precious\n");
    });
    expect(previews[0]).toBe("--- a/notes.txt\n+++ b/notes.txt\n@@ -0,0 +1,1 @@\n+new");
    expect(result).toBe(changedMessage('"notes.txt"', "write_file"));
    expect(readFileSync(path.join(ws, "notes.txt"), "utf8")).toBe("precious\n");
  });

  it("a link retargeted meanwhile does not carry the write to a file that was not shown", async () => {
    const ws = tempDir();
    mkdirSync(path.join(ws, "docs"));
    mkdirSync(path.join(ws, "hooks"));
    writeFileSync(path.join(ws, "docs", "a.md"), "doc\n");
    writeFileSync(path.join(ws, "hooks", "pre-commit"), "#!/bin/sh\n");
    symlinkSync("docs/a.md", path.join(ws, "link.md"));
    const { previews, result } = await approvedWhileChanged(ws, "write_file", { path: "link.md", content: "echo pwned\n" }, () => {
      rmSync(path.join(ws, "link.md"));
      symlinkSync("hooks/pre-commit", path.join(ws, "link.md"));
    });
    expect(previews[0]).toBe("--- a/docs/a.md\n+++ b/docs/a.md\n@@ -1,1 +1,1 @@\n-doc\n+echo pwned");
    expect(result).toBe(changedMessage('"link.md"', "write_file"));
    expect(readFileSync(path.join(ws, "hooks", "pre-commit"), "utf8")).toBe("#!/bin/sh\n");
  });

  it("a file changed elsewhere than the edit is not written either: its diff was not the one shown", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "a.txt"), "one\ntwo\n");
    const { result } = await approvedWhileChanged(ws, "edit_file", { path: "a.txt", old_text: "two", new_text: "TWO" }, () => {
      writeFileSync(path.join(ws, "a.txt"), "ONE\ntwo\n");
    });
    expect(result).toBe(changedMessage('"a.txt"', "edit_file"));
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("ONE\ntwo\n");
  });

  it("a file left as it was is written as shown, and a later identical call is shown again", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "a.txt"), "one\n");
    const first = await approvedWhileChanged(ws, "write_file", { path: "a.txt", content: "two\n" }, () => undefined);
    expect(first.result).toBe('replaced "a.txt": 4 bytes, 1 line.');
    writeFileSync(path.join(ws, "a.txt"), "one\n");
    const second = await approvedWhileChanged(ws, "write_file", { path: "a.txt", content: "two\n" }, () => undefined);
    expect(second.result).toBe('replaced "a.txt": 4 bytes, 1 line.');
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("two\n");
  });

  it.each([
    ["denied", (_stop: () => void) => false],
    ["stopped while its question was open", (stop: () => void) => {
      stop();
      return true;
    }],
  ])("a call %s leaves nothing behind: the same call made later on the changed file, with no approval step, is written", async (_how, answer) => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "a.txt"), "one\n");
    const args = JSON.stringify({ path: "a.txt", content: "two\n" });
    const executor = builtInExecutor();
    const { requestTurn } = scriptedRequester([toolTurn(call("c1", "write_file", args)), answerTurn("done")]);
    const stopper = new AbortController();
    const agent = createAgent({ requestTurn, executor, model: "m", workspace: ws, approve: () => answer(() => stopper.abort()) });
    await agent.run("go", { signal: stopper.signal });
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("one\n");
    writeFileSync(path.join(ws, "a.txt"), "other\n");
    // As `sigloop mcp` runs it: its client decided, so the executor asks nothing.
    const later = await executor.run(call("c2", "write_file", args), { workspace: ws, signal: new AbortController().signal });
    expect(later.content).toBe('replaced "a.txt": 4 bytes, 1 line.');
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("two\n");
  });

  it("two agents in one process: one's approved call is checked against its own screen, whatever the other showed or ran", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "a.txt"), "one\n");
    const args = { path: "a.txt", content: "two\n" };
    // While the first agent's question is open, a second agent shows and runs the very same call, then
    // someone changes the file: what the first agent's user saw no longer holds.
    const { requestTurn, requests } = scriptedRequester([toolTurn(call("c1", "write_file", JSON.stringify(args))), answerTurn("done")]);
    const agent = createAgent({
      requestTurn, executor: builtInExecutor(), model: "m", workspace: ws,
      approve: async () => {
        const other = await approvedWhileChanged(ws, "write_file", args, () => undefined);
        expect(other.result).toBe('replaced "a.txt": 4 bytes, 1 line.');
        writeFileSync(path.join(ws, "a.txt"), "precious\n");
        return true;
      },
    });
    await agent.run("go");
    expect(requests[1]?.messages.at(-1)?.content).toBe(changedMessage('"a.txt"', "write_file"));
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("precious\n");
  });

  it("two calls of one turn to the same file: each is shown against the file the call before it left, and both are written", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "a.txt"), "one\n");
    const { requestTurn, requests } = scriptedRequester([
      toolTurn(call("c1", "write_file", JSON.stringify({ path: "a.txt", content: "two\n" })), call("c2", "edit_file", JSON.stringify({ path: "a.txt", old_text: "two", new_text: "three" }))),
      answerTurn("done"),
    ]);
    const previews: string[] = [];
    const agent = createAgent({ requestTurn, executor: builtInExecutor(), model: "m", workspace: ws, approve: (_call, info) => (previews.push(info.preview ?? ""), true) });
    await agent.run("go");
    expect(previews).toEqual(["--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-one\n+two", "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-two\n+three"]);
    expect(requests[1]?.messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(['replaced "a.txt": 4 bytes, 1 line.', 'edited "a.txt": 1 replacement, on line 1.']);
    expect(readFileSync(path.join(ws, "a.txt"), "utf8")).toBe("three\n");
  });

  it("a preview never approved does not block the same call when it is made again on a changed file", async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, "a.txt"), "one\n");
    await previewFileChange("write_file", { path: "a.txt", content: "two\n" }, ws);
    writeFileSync(path.join(ws, "a.txt"), "other\n");
    const second = await approvedWhileChanged(ws, "write_file", { path: "a.txt", content: "two\n" }, () => undefined);
    expect(second.result).toBe('replaced "a.txt": 4 bytes, 1 line.');
  });
});
