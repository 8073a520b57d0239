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
/** What happened, in order: each request the server got, and the CLI's `afterWarmUp` call. */
const events: string[] = [];
const server = await startScriptedServer({
  script: [{ toolCalls: [{ id: "c1", name: "hi", arguments: "{}" }] }, { content: "done" }],
  onRequest: () => {
    events.push("request");
    importedAtRequest.push(marks[MARK] === true);
  },
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
    afterWarmUp: () => events.push("warmed up"),
  }).then((code) => ({ code, stdout }));
}

it("imports the tool modules before the first request, then runs as usual", async () => {
  events.length = 0;
  const run = await runWarmingUp(["--schemas", schemas, "--no-stream", "say hi"]);
  expect({ ...run, importedAtRequest, events }).toEqual({ code: 0, stdout: "done\n", importedAtRequest: [true, true], events: ["warmed up", "request", "request"] });
  expect((server.requests[1]?.body?.messages as unknown[] | undefined)?.at(-1)).toMatchObject({ role: "tool", content: "hi" });
});

it("behind the first request, sends it without waiting for the tool modules' imports", async () => {
  const slowImportedAtRequest: boolean[] = [];
  server.setScript((request) => {
    slowImportedAtRequest.push(marks[SLOW_MARK] === true);
    return { content: `answer ${request.index}` };
  });
  events.length = 0;
  const run = await runWarmingUp(["--schemas", slowSchemas, "--no-stream", "say hi"], "behind-first-request");
  expect(run.code).toBe(0);
  expect(slowImportedAtRequest).toEqual([false]);
  // The warm-up ends once the slow module is in, after the first request.
  await vi.waitFor(() => expect(events).toEqual(["request", "warmed up"]), { timeout: 5_000 });
});
