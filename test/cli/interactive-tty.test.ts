/**
 * The interactive chat on a real terminal: `script` gives the CLI a pseudo-terminal. Input is sent only
 * after the prompt it answers has appeared, so nothing depends on timing.
 */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, projectRoot, SENTINEL_KEY, tempDir, writeFixtureSchemas } from "./support.js";

const hasScript = spawnSync("script", ["--version"]).status === 0;
let server: ScriptedServer;
let schemas: string;

beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
  schemas = writeFixtureSchemas(tempDir());
});
afterAll(() => server.close());

it.skipIf(!hasScript)("on a terminal with no prompt: a chat keeping history; Ctrl-C stops a request and returns to the chat; Ctrl-D leaves", async () => {
  server.setScript([{ content: "first answer" }, { content: "never sent", delayMs: 30_000 }, { content: "third answer" }]);
  const command = [process.execPath, "--import", "tsx", path.join(projectRoot, "scripts/agent.ts"), "--schemas", schemas].map((part) => `'${part}'`).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: projectRoot, env: { PATH: process.env.PATH, TERM: "dumb", ...cliEnv(server.baseURL) }, stdio: ["pipe", "pipe", "pipe"] });
  let screen = "";
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    screen += chunk;
    waiters.splice(0).forEach((wake) => wake());
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const promptsSeen = () => screen.split("> ").length - 1;
  const until = async (condition: () => boolean) => {
    while (!condition()) await new Promise<void>((resolve) => waiters.push(resolve));
  };

  await until(() => promptsSeen() >= 1);
  child.stdin.write("hello\r");
  await until(() => promptsSeen() >= 2);
  child.stdin.write("slow one\r");
  await server.waitForRequests(2);
  child.stdin.write("\u0003");
  await until(() => promptsSeen() >= 3);
  child.stdin.write("and now?\r");
  await until(() => promptsSeen() >= 4);
  child.stdin.write("\u0004");
  expect(await exited).toBe(0);

  expect(screen).toContain("first answer");
  expect(screen).toContain("interrupted");
  expect(screen).toContain("third answer");
  expect(screen).not.toContain(SENTINEL_KEY);
  const history = (server.requests[2]?.body?.messages as Array<{ role: string; content: string }>).map((m) => m.content);
  // The interrupted prompt stays in history (it was sent); its missing answer is not made up.
  expect(history.slice(1)).toEqual(["hello", "first answer", "slow one", "and now?"]);
}, 30_000);
