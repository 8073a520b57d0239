/**
 * The interactive chat on a real terminal (pseudo-terminal.ts). Input is sent only after the prompt it
 * answers has appeared, so nothing depends on timing.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, SENTINEL_KEY, tempDir, writeFixtureSchemas } from "./support.js";
import { agentOnTerminal, hasScript } from "./pseudo-terminal.js";
let server: ScriptedServer;
let schemas: string;

beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
  schemas = writeFixtureSchemas(tempDir());
});
afterAll(() => server.close());

it.skipIf(!hasScript)("on a terminal with no prompt: a chat keeping history; Ctrl-C stops a request and returns to the chat; Ctrl-D leaves", async () => {
  server.setScript([{ content: "first answer" }, { content: "never sent", delayMs: 30_000 }, { content: "third answer" }]);
  const term = agentOnTerminal(["--schemas", schemas], cliEnv(server.baseURL));
  const { child, exited, until } = term;
  const promptsSeen = () => term.count("> ");
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

  const screen = term.screen();
  expect(screen).toContain("first answer");
  expect(screen).toContain("interrupted");
  expect(screen).toContain("third answer");
  expect(screen).not.toContain(SENTINEL_KEY);
  const history = (server.requests[2]?.body?.messages as Array<{ role: string; content: string }>).map((m) => m.content);
  // The interrupted prompt stays in history (it was sent); its missing answer is not made up.
  expect(history.slice(1)).toEqual(["hello", "first answer", "slow one", "and now?"]);
}, 30_000);
