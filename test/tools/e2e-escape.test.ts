/**
 * End to end: the real CLI (in this process), the real generated schemas of tools/, the real executor,
 * and a scripted model that tries to read ../../etc/passwd. It gets a refusal, and no request the model
 * server sees afterwards holds a byte of the file.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/runtime/loop/messages.js";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, projectRoot, runCliInProcess, tempDir, writeFixtureSchemas } from "../cli/support.js";

const FAKE_PASSWD = "root:x:0:0:FAKE-PASSWD-SENTINEL-5e1d:/root:/bin/bash\n";

let server: ScriptedServer;
let base: string;
let ws: string;
let schemas: string;

beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
  base = tempDir();
  ws = path.join(base, "home", "ws");
  mkdirSync(ws, { recursive: true });
  mkdirSync(path.join(base, "etc"));
  // ../../etc/passwd from the workspace: a real file there, so a leak would have something to leak.
  writeFileSync(path.join(base, "etc", "passwd"), FAKE_PASSWD);
  writeFileSync(path.join(ws, "readme.txt"), "inside\n");
  schemas = writeFixtureSchemas(base, path.join(projectRoot, "tools"));
});
afterAll(async () => {
  await server.close();
});

describe("an agent asking for ../../etc/passwd", () => {
  it("gets a refusal naming the workspace, and the file never reaches the model", async () => {
    server.setScript([
      { toolCalls: [{ id: "c1", name: "read_file", arguments: '{"path":"../../etc/passwd"}' }] },
      {
        toolCalls: [
          { id: "c2", name: "read_file", arguments: '{"path":"/etc/passwd"}' },
          { id: "c3", name: "list_files", arguments: '{"dir":"../../etc"}' },
          { id: "c4", name: "read_file", arguments: '{"path":"readme.txt"}' },
          { id: "c5", name: "read_file", arguments: '{"path":"missing.txt"}' },
        ],
      },
      { content: "I cannot read that file." },
    ]);
    const run = await runCliInProcess(["--schemas", schemas, "--workspace", ws, "show me ../../etc/passwd"], cliEnv(server.baseURL), base);
    expect(run).toMatchObject({ code: 0, stdout: "I cannot read that file.\n" });

    const history = (server.requests.at(-1)?.body?.messages ?? []) as ChatMessage[];
    const toolResults = history
      .filter((message) => message.role === "tool")
      .map((message) => [message.tool_call_id, message.content]);
    const readFileParameters = "Parameters: path (string, required); offset (number, optional); limit (number, optional)";
    const rejected = (tool: string, parameter: string, message: string, parameters: string): string =>
      [`The tool ${tool} rejected its arguments, so it has no result:`, `- ${parameter}: ${message}`, parameters, `Fix this and call ${tool} again.`].join("\n");
    const outside = (shown: string): string =>
      `The path ${JSON.stringify(shown)} is outside the workspace ${ws}. Only files inside it can be used: give a path relative to it (or an absolute path under it).`;
    expect(toolResults).toEqual([
      ["c1", rejected("read_file", "path", outside("../../etc/passwd"), readFileParameters)],
      ["c2", rejected("read_file", "path", outside("/etc/passwd"), readFileParameters)],
      ["c3", rejected("list_files", "dir", outside("../../etc"), "Parameters: dir (string, optional); depth (number, optional)")],
      ["c4", "inside\n"],
      ["c5", rejected("read_file", "path", `ENOENT: no such file or directory: "missing.txt" (in the workspace ${ws}). Use list_files to see what is there.`, readFileParameters)],
    ]);

    const realPasswdFirstLine = readFileSync("/etc/passwd", "utf8").split("\n")[0] ?? "";
    expect(server.requests.length).toBe(3);
    for (const request of server.requests) {
      expect(request.rawBody).not.toContain("FAKE-PASSWD-SENTINEL");
      if (realPasswdFirstLine !== "") expect(request.rawBody).not.toContain(realPasswdFirstLine);
    }
    expect(run.stdout + run.stderr).not.toContain("FAKE-PASSWD-SENTINEL");
  });
});
