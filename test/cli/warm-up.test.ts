/**
 * `warmUp: "before-first-request"` (what `npm run agent` asks for): the tool modules are imported before
 * the first request goes out, so the turns carry no one-off work; a run still answers as usual.
 * `"behind-first-request"` (the installed bin's): the first request goes out without waiting for them.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, expect, it, vi } from "vitest";
import { runAgentCli, type WarmUp } from "../../src/cli/run-agent-cli.js";
import { startScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, projectRoot, tempDir, writeFixtureSchemas } from "./support.js";

const MARK = "sigloopWarmUpTestImported";
const SLOW_MARK = "sigloopWarmUpTestSlowImported";
const marks = globalThis as { [MARK]?: true; [SLOW_MARK]?: true };
const dir = tempDir();
mkdirSync(path.join(dir, "tools"));
writeFileSync(
  path.join(dir, "tools", "marked.ts"),
  [`(globalThis as { ${MARK}?: true }).${MARK} = true;`, "", "/** Says hi. */", 'export function hi(): string {', '  return "hi";', "}", ""].join("\n"),
);
const schemas = writeFixtureSchemas(dir, path.join(dir, "tools"));
// A tool module that takes a second to import.
const slowDir = tempDir();
mkdirSync(path.join(slowDir, "tools"));
writeFileSync(
  path.join(slowDir, "tools", "slow.ts"),
  [`await new Promise((resolve) => setTimeout(resolve, 1_000));`, `(globalThis as { ${SLOW_MARK}?: true }).${SLOW_MARK} = true;`, "/** Says hi. */", "export function hi(): string {", '  return "hi";', "}", ""].join("\n"),
);
const slowSchemas = writeFixtureSchemas(slowDir, path.join(slowDir, "tools"));
const importedAtRequest: boolean[] = [];
const server = await startScriptedServer({
  script: [{ toolCalls: [{ id: "c1", name: "hi", arguments: "{}" }] }, { content: "done" }],
  onRequest: () => importedAtRequest.push(marks[MARK] === true),
});
afterAll(() => server.close());

function runWarmingUp(argv: string[], warmUp: WarmUp = "before-first-request") {
  let stdout = "";
  const stdin = new PassThrough();
  stdin.end();
  return runAgentCli({
    argv,
    env: cliEnv(server.baseURL),
    cwd: projectRoot,
    projectRoot,
    stdin,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: () => undefined },
    onInterrupt: () => () => undefined,
    warmUp,
  }).then((code) => ({ code, stdout }));
}

it("imports the tool modules before the first request, then runs as usual", async () => {
  const run = await runWarmingUp(["--schemas", schemas, "--no-stream", "say hi"]);
  expect({ ...run, importedAtRequest }).toEqual({ code: 0, stdout: "done\n", importedAtRequest: [true, true] });
  expect((server.requests[1]?.body?.messages as unknown[] | undefined)?.at(-1)).toMatchObject({ role: "tool", content: "hi" });
});

it("behind the first request, sends it without waiting for the tool modules' imports", async () => {
  const slowImportedAtRequest: boolean[] = [];
  server.setScript((request) => {
    slowImportedAtRequest.push(marks[SLOW_MARK] === true);
    return { content: `answer ${request.index}` };
  });
  const run = await runWarmingUp(["--schemas", slowSchemas, "--no-stream", "say hi"], "behind-first-request");
  expect(run.code).toBe(0);
  expect(slowImportedAtRequest).toEqual([false]);
  // The warm-up still imports the slow module, after the first request.
  await vi.waitFor(() => expect(marks[SLOW_MARK]).toBe(true), { timeout: 5_000 });
});
