/**
 * How `npm run agent` (plain JavaScript, no TypeScript loader of its own) imports a project's TypeScript
 * tools, seen by the model: in an ES module project they are compiled together into the project's
 * `node_modules/.cache/sigloop/`, and two tools that share a module share its state; in a CommonJS
 * project a tool still has `__dirname`, through tsx's loader; a local CommonJS file a tool imports may
 * `require` TypeScript, as it could under tsx.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { startScriptedServer, type ScriptStep } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, spawnCli, tempDir, writeFixtureSchemas } from "./support.js";

function project(type: "module" | "commonjs", files: Record<string, string>): { dir: string; schemas: string } {
  const dir = tempDir();
  mkdirSync(path.join(dir, "node_modules"));
  for (const folder of ["tools", "lib"]) mkdirSync(path.join(dir, folder));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type }));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return { dir, schemas: writeFixtureSchemas(dir, path.join(dir, "tools")) };
}

const server = await startScriptedServer({ script: [] });
afterAll(() => server.close());

function calls(...names: string[]): ScriptStep[] {
  return [...names.map((name, index) => ({ toolCalls: [{ id: `call_${index}`, name, arguments: "{}" }] })), { content: "done" }];
}

function toolResults(): unknown[] {
  const messages = (server.requests.at(-1)?.body?.messages ?? []) as { role: string; content: string }[];
  return messages.filter((message) => message.role === "tool").map((message) => message.content);
}

it("compiles an ES module project's tools once, and tools that share a module share its state", async () => {
  const { dir, schemas } = project("module", {
    "lib/counter.ts": "let count = 0;\nexport function next(): number {\n  return ++count;\n}\n",
    "tools/first.ts": [
      'import { fileURLToPath } from "node:url";',
      'import { next } from "../lib/counter.js";',
      "",
      "/** Counts. */",
      "export function first(): string {",
      "  return `first ${next()} in ${fileURLToPath(import.meta.url)}`;",
      "}",
      "",
    ].join("\n"),
    "tools/second.ts": 'import { next } from "../lib/counter.js";\n\n/** Counts. */\nexport function second(): string {\n  return `second ${next()}`;\n}\n',
  });
  server.setScript(calls("first", "second", "first"));
  const run = await spawnCli(["--schemas", schemas, "--no-stream", "count"], cliEnv(server.baseURL), dir).done;
  expect(run.code).toBe(0);
  const first = path.join(dir, "tools", "first.ts");
  expect(toolResults()).toEqual([`first 1 in ${first}`, "second 2", `first 3 in ${first}`]);
  expect(readdirSync(path.join(dir, "node_modules", ".cache", "sigloop")).filter((name) => name.endsWith(".json"))).toHaveLength(1);
});

it("imports a CommonJS project's tools through the loader, where __dirname is the tool's folder", async () => {
  const { dir, schemas } = project("commonjs", {
    "tools/where.ts": "/** Says where it is. */\nexport function where(): string {\n  return __dirname;\n}\n",
  });
  server.setScript(calls("where"));
  const run = await spawnCli(["--schemas", schemas, "--no-stream", "where?"], cliEnv(server.baseURL), dir).done;
  expect(run.code).toBe(0);
  expect(toolResults()).toEqual([path.join(dir, "tools")]);
  expect(existsSync(path.join(dir, "node_modules", ".cache", "sigloop"))).toBe(false);
});

it("compiles a tool whose local JavaScript module imports TypeScript in turn, that module with it", async () => {
  const { dir, schemas } = project("module", {
    "lib/bridge.js": 'export { inner } from "./inner.ts";\n',
    "lib/bridge.d.ts": "export declare function inner(): string;\n",
    "lib/inner.ts": 'export function inner(): string {\n  return "inner, through the bridge";\n}\n',
    "tools/bridged.ts": 'import { inner } from "../lib/bridge.js";\n\n/** Calls through a JavaScript file. */\nexport function bridged(): string {\n  return inner();\n}\n',
  });
  server.setScript(calls("bridged"));
  const run = await spawnCli(["--schemas", schemas, "--no-stream", "bridge"], cliEnv(server.baseURL), dir).done;
  expect(run.code).toBe(0);
  expect(toolResults()).toEqual(["inner, through the bridge"]);
  expect(readdirSync(path.join(dir, "node_modules", ".cache", "sigloop")).filter((name) => name.endsWith(".json"))).toHaveLength(1);
});

it("loads TypeScript that a tool's local CommonJS file requires, through tsx's CommonJS hooks", async () => {
  const { dir, schemas } = project("module", {
    "lib/legacy.cjs": 'module.exports = require("./inner.ts");\n',
    "lib/legacy.d.cts": "declare const legacy: { inner(): string };\nexport = legacy;\n",
    "lib/inner.ts": 'export function inner(): string {\n  return "inner, through CommonJS";\n}\n',
    "tools/legacy.ts": 'import legacyModule from "../lib/legacy.cjs";\n\n/** Calls through a CommonJS file. */\nexport function legacy(): string {\n  return legacyModule.inner();\n}\n',
  });
  server.setScript(calls("legacy"));
  const run = await spawnCli(["--schemas", schemas, "--no-stream", "legacy"], cliEnv(server.baseURL), dir).done;
  expect(run.code).toBe(0);
  expect(toolResults()).toEqual(["inner, through CommonJS"]);
  expect(readdirSync(path.join(dir, "node_modules", ".cache", "sigloop")).filter((name) => name.endsWith(".json"))).toHaveLength(1);
});
