/**
 * `warmUp: "before-first-request"` (what `npm run agent` asks for): the tool modules are imported before
 * the first request goes out, so the turns carry no one-off work; a run still answers as usual.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, expect, it } from "vitest";
import { runAgentCli } from "../../src/cli/run-agent-cli.js";
import { startScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, projectRoot, tempDir, writeFixtureSchemas } from "./support.js";

const MARK = "sigloopWarmUpTestImported";
const marks = globalThis as { [MARK]?: true };
const dir = tempDir();
mkdirSync(path.join(dir, "tools"));
writeFileSync(
  path.join(dir, "tools", "marked.ts"),
  [`(globalThis as { ${MARK}?: true }).${MARK} = true;`, "", "/** Says hi. */", 'export function hi(): string {', '  return "hi";', "}", ""].join("\n"),
);
const schemas = writeFixtureSchemas(dir, path.join(dir, "tools"));
const importedAtRequest: boolean[] = [];
const server = await startScriptedServer({
  script: [{ toolCalls: [{ id: "c1", name: "hi", arguments: "{}" }] }, { content: "done" }],
  onRequest: () => importedAtRequest.push(marks[MARK] === true),
});
afterAll(() => server.close());

it("imports the tool modules before the first request, then runs as usual", async () => {
  let stdout = "";
  const stdin = new PassThrough();
  stdin.end();
  const code = await runAgentCli({
    argv: ["--schemas", schemas, "--no-stream", "say hi"],
    env: cliEnv(server.baseURL),
    cwd: projectRoot,
    projectRoot,
    stdin,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: () => undefined },
    onInterrupt: () => () => undefined,
    warmUp: "before-first-request",
  });
  expect({ code, stdout, importedAtRequest }).toEqual({ code: 0, stdout: "done\n", importedAtRequest: [true, true] });
  expect((server.requests[1]?.body?.messages as unknown[] | undefined)?.at(-1)).toMatchObject({ role: "tool", content: "hi" });
});
