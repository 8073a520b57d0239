/**
 * `answer=$(sigloop agent …)` gets exactly the answer: what a tool prints (`console.log`,
 * `process.stdout.write`) goes to the real agent's stderr, as in MCP mode.
 */
import { afterAll, expect, it } from "vitest";
import { startScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, spawnCli } from "../cli/support.js";
import { toolFolder } from "./support.js";

const server = await startScriptedServer({ script: [] });
afterAll(() => server.close());

it("a tool's console.log lands on stderr; stdout holds exactly the answer", async () => {
  const folder = toolFolder({
    "chatty.ts": [
      "/** Prints while it works. */",
      "export function chatty(): string {",
      '  console.log("debug: chatty was called");',
      '  process.stdout.write("raw write\\n");',
      '  return "done";',
      "}",
      "",
    ].join("\n"),
  });
  server.setScript([{ toolCalls: [{ id: "call_1", name: "chatty", arguments: "{}" }] }, { content: "the answer" }]);
  const run = await spawnCli(["--schemas", folder.schemas, "--workspace", folder.dir, "--no-stream", "go"], cliEnv(server.baseURL), folder.dir).done;
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("the answer\n");
  expect(run.stderr).toContain("debug: chatty was called\n");
  expect(run.stderr).toContain("raw write\n");
});
