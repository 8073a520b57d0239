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

/**
 * `npm run agent` in a new project of `type` holding `files`, the model calling the tools `names` in
 * turn: what the tools returned, and the compiled tools' manifests in the project's cache.
 */
async function runCalling(type: "module" | "commonjs", files: Record<string, string>, ...names: string[]) {
  const { dir, schemas } = project(type, files);
  server.setScript(calls(...names));
  const run = await spawnCli(["--schemas", schemas, "--no-stream", "go"], cliEnv(server.baseURL), dir).done;
  expect(run.code).toBe(0);
  const cache = path.join(dir, "node_modules", ".cache", "sigloop");
  const manifests = existsSync(cache) ? readdirSync(cache).filter((name) => name.endsWith(".json")) : [];
  return { dir, results: toolResults(), manifests };
}

it("compiles an ES module project's tools once, and tools that share a module share its state", async () => {
  const { dir, results, manifests } = await runCalling(
    "module",
    {
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
    },
    "first",
    "second",
    "first",
  );
  const first = path.join(dir, "tools", "first.ts");
  expect({ results, manifests: manifests.length }).toEqual({ results: [`first 1 in ${first}`, "second 2", `first 3 in ${first}`], manifests: 1 });
});

it("imports a CommonJS project's tools through the loader, where __dirname is the tool's folder", async () => {
  const { dir, results, manifests } = await runCalling(
    "commonjs",
    { "tools/where.ts": "/** Says where it is. */\nexport function where(): string {\n  return __dirname;\n}\n" },
    "where",
  );
  expect({ results, manifests }).toEqual({ results: [path.join(dir, "tools")], manifests: [] });
});

it("compiles a tool whose local JavaScript module imports TypeScript in turn, that module with it", async () => {
  const { results, manifests } = await runCalling(
    "module",
    {
      "lib/bridge.js": 'export { inner } from "./inner.ts";\n',
      "lib/bridge.d.ts": "export declare function inner(): string;\n",
      "lib/inner.ts": 'export function inner(): string {\n  return "inner, through the bridge";\n}\n',
      "tools/bridged.ts": 'import { inner } from "../lib/bridge.js";\n\n/** Calls through a JavaScript file. */\nexport function bridged(): string {\n  return inner();\n}\n',
    },
    "bridged",
  );
  expect({ results, manifests: manifests.length }).toEqual({ results: ["inner, through the bridge"], manifests: 1 });
});

it("loads TypeScript that a tool's local CommonJS file requires, through tsx's CommonJS hooks", async () => {
  const { results, manifests } = await runCalling(
    "module",
    {
      "lib/legacy.cjs": 'module.exports = require("./inner.ts");\n',
      "lib/legacy.d.cts": "declare const legacy: { inner(): string };\nexport = legacy;\n",
      "lib/inner.ts": 'export function inner(): string {\n  return "inner, through CommonJS";\n}\n',
      "tools/legacy.ts": 'import legacyModule from "../lib/legacy.cjs";\n\n/** Calls through a CommonJS file. */\nexport function legacy(): string {\n  return legacyModule.inner();\n}\n',
    },
    "legacy",
  );
  expect({ results, manifests: manifests.length }).toEqual({ results: ["inner, through CommonJS"], manifests: 1 });
});
