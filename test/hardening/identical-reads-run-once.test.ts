/**
 * Identical calls of one turn to a read-only, idempotent tool run once and every call gets the result
 * (200 `list_files` of one large directory used to walk it 200 times); calls that differ, and tools
 * not declared so, still run each.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { startScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, spawnCli, tempDir } from "../cli/support.js";
import { toolFolder } from "./support.js";

const server = await startScriptedServer({ script: [] });
afterAll(() => server.close());

const TOOLS = {
  "count.ts": [
    "let reads = 0;",
    "let writes = 0;",
    "/**",
    " * Reads. @param key A key.",
    " * @readOnly",
    " * @idempotent",
    " */",
    "export async function look(key: string): Promise<string> {",
    "  reads += 1;",
    "  await new Promise((resolve) => setTimeout(resolve, 20));",
    "  return `look ${key} #${reads}`;",
    "}",
    "",
    "/** Writes. @param key A key. */",
    "export function touch(key: string): string {",
    "  writes += 1;",
    "  return `touch ${key} #${writes}`;",
    "}",
    "",
  ].join("\n"),
};

function toolResults(): string[] {
  const messages = (server.requests.at(-1)?.body?.messages ?? []) as { role: string; content: string }[];
  return messages.filter((message) => message.role === "tool").map((message) => message.content);
}

it("200 identical calls to a read-only idempotent tool run once; others run each", async () => {
  const folder = toolFolder(TOOLS);
  const same = Array.from({ length: 200 }, (_, index) => ({ id: `call_${index}`, name: "look", arguments: index % 2 === 0 ? '{"key":"a"}' : '{ "key" : "a" }' }));
  server.setScript([
    { toolCalls: [...same, { id: "call_b", name: "look", arguments: '{"key":"b"}' }, { id: "call_t1", name: "touch", arguments: '{"key":"a"}' }, { id: "call_t2", name: "touch", arguments: '{"key":"a"}' }] },
    { content: "looked" },
  ]);
  const run = await spawnCli(["--schemas", folder.schemas, "--workspace", folder.dir, "--no-stream", "go"], cliEnv(server.baseURL), folder.dir).done;
  expect(run.code).toBe(0);
  const results = toolResults();
  expect(results.slice(0, 200)).toEqual(Array(200).fill("look a #1"));
  expect(results.slice(200)).toEqual(["look b #2", "touch a #1", "touch a #2"]);
});

it("200 parallel list_files of one 20,000-entry directory in one turn walk it once", async () => {
  const dir = tempDir();
  const big = path.join(dir, "big");
  mkdirSync(big);
  for (let index = 0; index < 20_000; index += 1) writeFileSync(path.join(big, `f${index}`), "");
  server.setScript([
    { toolCalls: Array.from({ length: 200 }, (_, index) => ({ id: `call_${index}`, name: "list_files", arguments: '{"dir":"big"}' })) },
    { content: "listed" },
  ]);
  const started = performance.now();
  const run = await spawnCli(["--no-stream", "--workspace", dir, "go"], cliEnv(server.baseURL)).done;
  expect(run.code).toBe(0);
  expect(new Set(toolResults()).size).toBe(1);
  expect(performance.now() - started).toBeLessThan(60_000);
}, 120_000);
