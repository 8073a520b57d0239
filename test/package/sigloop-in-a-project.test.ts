/**
 * The packed tarball installed in fresh projects, used the way its README says: `sigloop gen`, `agent`,
 * `mcp`, `demo`, `--help`, `--version` from the project's folder; tools importing "sigloop" and re-exporting
 * "sigloop/tools", type-checked by the project's own tsc (`tsc --init` defaults); the library from plain
 * JavaScript. An ES module project and a CommonJS project, each run first without a tsconfig.json and then
 * with `tsc --init`'s. Packed once.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ANSWER } from "../../src/demo/demo-script.js";
import { startScriptedServer, type ScriptedServer, type ScriptStep } from "../../src/scripted-server/scripted-server.js";
import type { SchemasFile } from "../../src/shared/schemas-file.js";
import { oldNode } from "../support/old-node.js";
import { SENTINEL_API_KEY } from "../support/sentinel-key.js";
import { binPath, createProject, packSigloop, repoRoot, run, writeFiles, type ProcessResult } from "./installed-sigloop.js";

const SLOW = 240_000;
const hasScript = spawnSync("script", ["--version"]).status === 0;

/** A tool that reports the workspace its `toolContext()` sees, and a shared type from a sibling file. */
const whereTool = (typesImport: string) => `import { toolContext } from "sigloop";
import type { Greeting } from "${typesImport}";

/**
 * Say which workspace this call runs in.
 * @param greeting How to start the answer.
 */
export function where(greeting: Greeting): string {
  const { workspace, signal } = toolContext();
  return \`\${greeting.word} \${workspace} aborted=\${signal.aborted}\`;
}
`;
const greetingType = `export interface Greeting {
  /** The word to start with. */
  word: string;
}
`;
const builtIns = `export { read_file, list_files } from "sigloop/tools";\n`;
const oneTool = (name: string) => `/** Tool ${name}. */\nexport const ${name} = (): string => "${name}";\n`;

const repoSchemas = JSON.parse(readFileSync(path.join(repoRoot, "generated", "schemas.json"), "utf8")) as SchemasFile;
const sigloopVersion = (JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
const definitionOf = (file: SchemasFile, name: string) => file.tools.find((tool) => tool.function.name === name);

let tarball: string;
let server: ScriptedServer;

beforeAll(async () => {
  tarball = await packSigloop();
  server = await startScriptedServer({ script: [] });
}, SLOW);

afterAll(async () => {
  await server?.close();
});

function sigloop(project: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ProcessResult> {
  return run(binPath(project), args, {
    cwd: project,
    env: { PATH: process.env.PATH, NO_COLOR: "1", ...env },
  });
}

/** One scripted conversation: the model calls `where` and `read_file`, then answers. */
async function scriptedAgentRun(project: string, args: readonly string[], env: NodeJS.ProcessEnv) {
  server.setScript([
    { toolCalls: [
      { id: "call_1", name: "where", arguments: '{"greeting":{"word":"hello"}}' },
      { id: "call_2", name: "read_file", arguments: '{"path":"note.txt"}' },
    ] },
    { content: "done" },
  ]);
  const before = server.requests.length;
  const result = await sigloop(project, ["agent", ...args, "What is here?"], env);
  const last = server.requests.at(-1);
  const toolResults = server.requests.length > before && last !== undefined
    ? ((last.body?.messages ?? []) as { role: string; content: string }[]).filter((message) => message.role === "tool").map((message) => message.content)
    : [];
  return { ...result, toolResults };
}

/** `sigloop gen` with no diagnostic at all; the re-exported built-ins must have this repository's schemas (lenient and strict) and annotations. */
async function generateCleanly(project: string, toolCount: number): Promise<SchemasFile> {
  const gen = await sigloop(project, ["gen"]);
  expect(gen.stderr).toBe("");
  expect(gen.stdout).toBe(`gen: ${toolCount} tools → generated/schemas.json\n`);
  expect(gen.code).toBe(0);
  const schemas = JSON.parse(readFileSync(path.join(project, "generated", "schemas.json"), "utf8")) as SchemasFile;
  for (const name of ["read_file", "list_files"]) {
    expect(definitionOf(schemas, name)).toEqual(definitionOf(repoSchemas, name));
    expect(schemas.strictTools?.find((tool) => tool.function.name === name)).toEqual(repoSchemas.strictTools?.find((tool) => tool.function.name === name));
    expect(schemas.annotations?.[name]).toEqual(repoSchemas.annotations?.[name]);
  }
  return schemas;
}

const serverEnv = () => ({ OPENAI_API_KEY: SENTINEL_API_KEY, OPENAI_BASE_URL: server.baseURL });

const projectTsc = (project: string) => path.join(project, "node_modules", "typescript", "bin", "tsc");

/** `tsc --init` in the project, with the TypeScript that sigloop brought (the user installs nothing else). */
async function tscInit(project: string): Promise<void> {
  const init = await run(process.execPath, [projectTsc(project), "--init"], { cwd: project });
  expect(init.code).toBe(0);
}

/** The project's own `tsc --noEmit -p .` passes with no output. */
async function expectProjectTypeChecks(project: string): Promise<void> {
  const tsc = await run(process.execPath, [projectTsc(project), "--noEmit", "-p", "."], { cwd: project });
  expect(tsc.stdout + tsc.stderr).toBe("");
  expect(tsc.code).toBe(0);
}

describe("the tarball", () => {
  it("holds what a user needs (compiled JavaScript with declarations, the demo, README, LICENSE, docs) and no tests, fixtures, benches or CI files", async () => {
    const listing = await run("tar", ["tzf", tarball], { cwd: repoRoot });
    const files = listing.stdout.trim().split("\n").map((file) => file.replace(/^package\//, ""));
    expect(new Set(files.map((file) => file.split("/")[0]))).toEqual(new Set(["LICENSE", "README.md", "package.json", "dist", "docs"]));
    expect(new Set(files.filter((file) => file.startsWith("dist/")).map((file) => file.split("/")[1]))).toEqual(new Set(["src", "tools", "demo"]));
    expect(files.filter((file) => /(^|\/)(test|tests|bench|fixtures|\.ci)\/|\.test\.|\.tsbuildinfo$/.test(file))).toEqual([]);
    // The scripted server too: CI's run of the installed package starts it from there.
    const entries = ["dist/src/index.js", "dist/src/index.d.ts", "dist/src/tools.js", "dist/src/tools.d.ts", "dist/src/bin/sigloop.js", "dist/src/scripted-server/scripted-server.js"];
    for (const entry of entries) expect(files).toContain(entry);
    expect(readFileSync(path.join(repoRoot, "LICENSE"), "utf8")).toMatch(/^MIT License/);
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.engines).toEqual({ node: ">=22.19" });
    expect(manifest.bin).toEqual({ sigloop: "dist/src/bin/sigloop.js" });
  }, SLOW);

  it("carries the openai SDK inside its JavaScript (one file loads faster than the SDK's 455), every other package as an import", async () => {
    const listing = await run("tar", ["xzf", tarball, "-O", "--wildcards", "package/dist/src/*.js"], { cwd: repoRoot });
    const imported = new Set([...listing.stdout.matchAll(/\bfrom\s*"([^".][^"]*)"|\bimport\(\s*"([^".][^"]*)"\s*\)/g)].map((match) => (match[1] ?? match[2])!.replace(/^(@[^/]+\/[^/]+|[^/@][^/]*).*$/, "$1")));
    expect(imported.has("openai")).toBe(false);
    expect(imported).toContain("@anthropic-ai/sdk");
    expect(imported).toContain("@modelcontextprotocol/sdk");
    // The SDK's own header names: its client code is there, and so is its licence.
    expect(listing.stdout).toContain("X-Stainless-Package-Version");
    const licenses = await run("tar", ["xzf", tarball, "-O", "package/dist/src/THIRD-PARTY-LICENSES.txt"], { cwd: repoRoot });
    expect(licenses.stdout).toMatch(/^openai \d+\.\d+\.\d+ \(https:\/\/github\.com\/openai\/openai-node\), bundled into the chunks of dist\/src\/\n\n +Apache License\n/);
  }, SLOW);
});

describe("an ES module project, without a tsconfig.json and then with tsc --init's", () => {
  let project: string;
  beforeAll(async () => {
    project = await createProject(tarball, "module");
    writeFiles(project, {
      "tools/where.ts": whereTool("./types.js"),
      "tools/types.ts": greetingType,
      "tools/built_in.ts": builtIns,
      "workspace/note.txt": "a note\n",
      // Real types, not `any`: a wrong use must be a type error.
      "src/uses-types.ts": `import { createAgent, toolContext } from "sigloop";
// @ts-expect-error the workspace is a string
export const wrong: number = toolContext().workspace;
type IsAny<T> = 0 extends 1 & T ? true : false;
export const agentIsNotAny: IsAny<typeof createAgent> = false;
`,
    });
  }, SLOW);

  it("sigloop gen writes generated/schemas.json; the re-exported built-ins have this repository's schemas", async () => {
    const schemas = await generateCleanly(project, 3);
    expect(schemas.tools.map((tool) => tool.function.name)).toEqual(["list_files", "read_file", "where"]);
    expect(schemas.bindings.find((binding) => binding.name === "read_file")?.file).toBe("../tools/built_in.ts");
    expect((await sigloop(project, ["gen", "--check"])).code).toBe(0);
  }, SLOW);

  it("sigloop agent runs the project's TypeScript tools, which share the runtime's toolContext (the workspace flag)", async () => {
    const workspace = path.join(project, "workspace");
    const result = await scriptedAgentRun(project, ["--workspace", "workspace"], serverEnv());
    expect(result.stderr).not.toContain(SENTINEL_API_KEY);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("done\n");
    expect(result.toolResults).toEqual([`hello ${workspace} aborted=false`, "a note\n"]);

    // The bin takes the agent's flags through the same CLI entry: a window too small even for the tools
    // ends with exit 6 before any request.
    const before = server.requests.length;
    const tooSmall = await sigloop(project, ["agent", "--context-window", "100", "What is here?"], serverEnv());
    expect(tooSmall.code).toBe(6);
    expect(tooSmall.stderr).toContain("Stopped: the conversation does not fit the context window of 100 tokens");
    expect(server.requests.length).toBe(before);
  }, SLOW);

  it("the compiled bin imports the project's tool modules compiled once, without tsx, and never loads the TypeScript compiler to run the agent", async () => {
    // A resolve hook (node --import) appends every module URL the process resolves to a log.
    writeFiles(project, {
      "trace/hooks.mjs": `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.SIGLOOP_TRACE_LOG, resolved.url + "\\n");
  return resolved;
}
`,
      "trace/register.mjs": `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n`,
    });
    const loaded = async (script: ScriptStep[]) => {
      const log = path.join(project, "trace", `${Math.random().toString(36).slice(2)}.log`);
      writeFileSync(log, "");
      server.setScript(script);
      const bin = path.join(project, "node_modules", "sigloop", "dist", "src", "bin", "sigloop.js");
      const result = await run(process.execPath, ["--import", "./trace/register.mjs", bin, "agent", "--workspace", "workspace", "hi"], {
        cwd: project,
        env: { PATH: process.env.PATH, NO_COLOR: "1", SIGLOOP_TRACE_LOG: log, ...serverEnv() },
      });
      expect(result.code).toBe(0);
      const urls = readFileSync(log, "utf8");
      return { tsx: urls.includes("/node_modules/tsx/"), typescript: urls.includes("/node_modules/typescript/"), esbuild: urls.includes("/node_modules/esbuild/") };
    };
    const callingWhere: ScriptStep[] = [{ toolCalls: [{ id: "call_1", name: "where", arguments: '{"greeting":{"word":"hi"}}' }] }, { content: "done" }];
    // The tool modules are imported once the first request is sent, while it is answered
    // (docs/tool-execution.md): whether they were compiled before this quick answer ended the run is timing.
    expect((await loaded([{ content: "no tool needed" }])).typescript).toBe(false);
    rmSync(path.join(project, "node_modules", ".cache", "sigloop"), { recursive: true, force: true });
    expect(await loaded(callingWhere)).toEqual({ tsx: false, typescript: false, esbuild: true });
    // Compiled once: later runs import the cached modules.
    expect(await loaded(callingWhere)).toEqual({ tsx: false, typescript: false, esbuild: false });
  }, SLOW);

  it("tsc --init: the project's own tsc type-checks tools importing sigloop (module nodenext, strict, exactOptionalPropertyTypes); gen and agent agree", async () => {
    await tscInit(project);
    const tsconfig = readFileSync(path.join(project, "tsconfig.json"), "utf8");
    expect(tsconfig).toMatch(/"module": "nodenext"/);
    expect(tsconfig).toMatch(/"exactOptionalPropertyTypes": true/);
    expect(tsconfig).toMatch(/"verbatimModuleSyntax": true/);
    await expectProjectTypeChecks(project);
    expect((await sigloop(project, ["gen", "--check"])).code).toBe(0);
    const result = await scriptedAgentRun(project, ["--workspace", "workspace"], serverEnv());
    expect(result.stdout).toBe("done\n");
    expect(result.toolResults).toEqual([`hello ${path.join(project, "workspace")} aborted=false`, "a note\n"]);
  }, SLOW);

  it("sigloop gen --watch --tools DIR --out FILE: generates at once, then again when a tool file changes", async () => {
    writeFiles(project, { "watched/one.ts": oneTool("one") });
    const child = spawn(binPath(project), ["gen", "--watch", "--tools", "watched", "--out", "watched.json"], {
      cwd: project,
      env: { PATH: process.env.PATH, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let waiting: (() => void) | undefined;
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => ((stderr += chunk), waiting?.()));
    const exited = new Promise<never>((_resolve, reject) => child.on("close", (code) => reject(new Error(`gen --watch exited with ${code}: ${stderr}`))));
    exited.catch(() => {});
    const stderrReaches = (pattern: RegExp) => Promise.race([exited, new Promise<void>((resolve) => {
      waiting = () => pattern.test(stderr) && resolve();
      waiting();
    })]);
    try {
      await stderrReaches(/^gen: watching watched: 1 tool → watched\.json/m);
      writeFiles(project, { "watched/two.ts": oneTool("two") });
      await stderrReaches(/^gen: watched\/two\.ts: 2 tools → watched\.json/m);
      const schemas = JSON.parse(readFileSync(path.join(project, "watched.json"), "utf8")) as SchemasFile;
      expect(schemas.tools.map((tool) => tool.function.name)).toEqual(["one", "two"]);
    } finally {
      child.kill();
    }
  }, SLOW);

  it("the library works from plain JavaScript (node app.mjs), loading TypeScript tools itself", async () => {
    writeFiles(project, {
      "app.mjs": `import path from "node:path";
import { createToolExecutor, loadSchemas } from "sigloop";
const file = path.resolve("generated/schemas.json");
const loaded = loadSchemas(file);
if (!loaded.ok) throw new Error(loaded.error.message);
const executor = createToolExecutor({ schemas: loaded.schemas, schemasDir: path.dirname(file) });
const outcome = await executor.execute(
  { id: "1", type: "function", function: { name: "where", arguments: '{"greeting":{"word":"hi"}}' } },
  { workspace: "/the/workspace", signal: new AbortController().signal },
);
console.log(outcome.status, outcome.content);
`,
    });
    const app = await run(process.execPath, ["app.mjs"], { cwd: project });
    expect(app.stderr).toBe("");
    expect(app.stdout).toBe("ok hi /the/workspace aborted=false\n");
  }, SLOW);

  it("the library takes a program's own openai client (the project's copy of the SDK; sigloop's JavaScript carries its own): it answers, and its errors keep their kind", async () => {
    writeFiles(project, {
      "own-client.mjs": `import OpenAI from "openai";
import { createTurnRequester } from "sigloop";
const ask = (client) => createTurnRequester({ client, maxRetries: 0 })({
  model: "m", messages: [{ role: "user", content: "hi" }], tools: [], stream: true, signal: new AbortController().signal,
}).then((turn) => turn.message.content, (error) => [error.name, error.kind, error.status].join(" "));
console.log(await ask(new OpenAI({ apiKey: process.env.OPENAI_API_KEY, baseURL: process.env.OPENAI_BASE_URL })));
console.log(await ask(new OpenAI({ apiKey: process.env.OPENAI_API_KEY, baseURL: process.env.OPENAI_BASE_URL })));
console.log(await ask(new OpenAI({ apiKey: process.env.OPENAI_API_KEY, baseURL: "http://127.0.0.1:9/v1" })));
`,
    });
    server.setScript([{ content: "from the program's client" }, { fault: "status", status: 401, body: { error: { message: "Incorrect API key provided", type: "invalid_authentication", param: null, code: "invalid_api_key" } } }]);
    const app = await run(process.execPath, ["own-client.mjs"], { cwd: project, env: { ...process.env, ...serverEnv() } });
    expect(app.stderr).toBe("");
    expect(app.stdout).toBe("from the program's client\nModelRequestError http 401\nModelRequestError connection \n");
  }, SLOW);
});

describe("a CommonJS project, without a tsconfig.json and then with tsc --init's", () => {
  let project: string;
  beforeAll(async () => {
    project = await createProject(tarball, "commonjs");
    writeFiles(project, {
      "tools/where.ts": whereTool("./types"),
      "tools/types.ts": greetingType,
      "tools/built_in.ts": builtIns,
      "tools/uses_node.ts": `import { readFileSync } from "node:fs";

/**
 * The project's name, from its package.json.
 * @param file The package.json to read.
 */
export function project_name(file: string = "package.json"): string {
  return (JSON.parse(readFileSync(file, "utf8")) as { name: string }).name + " " + process.platform.length;
}
`,
      "workspace/note.txt": "a note\n",
    });
  }, SLOW);

  it("sigloop gen finds Node's typings with no @types/node of the project's own, and --check agrees", async () => {
    await generateCleanly(project, 4);
    expect((await sigloop(project, ["gen", "--check"])).code).toBe(0);
  }, SLOW);

  it("sigloop agent reads .env from the working directory and runs CommonJS tools sharing the runtime's toolContext", async () => {
    writeFiles(project, { ".env": `OPENAI_API_KEY=${SENTINEL_API_KEY}\nOPENAI_BASE_URL=${server.baseURL}\n` });
    const workspace = path.join(project, "workspace");
    const result = await scriptedAgentRun(project, ["--workspace", "workspace"], {});
    expect(result.stderr).not.toContain(SENTINEL_API_KEY);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("done\n");
    expect(result.toolResults).toEqual([`hello ${workspace} aborted=false`, "a note\n"]);
  }, SLOW);

  it("sigloop mcp serves the project's tools to an MCP client: tools/list, and a CommonJS tool call sharing toolContext", async () => {
    const transport = new StdioClientTransport({
      command: binPath(project),
      args: ["mcp", "--workspace", "workspace"],
      cwd: project,
      env: { PATH: process.env.PATH ?? "" },
      stderr: "pipe",
    });
    const client = new Client({ name: "packaging-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["list_files", "project_name", "read_file", "where"]);
      expect(client.getServerVersion()?.version).toBe(sigloopVersion);
      const result = await client.callTool({ name: "where", arguments: { greeting: { word: "hello" } } });
      expect(result.content).toEqual([{ type: "text", text: `hello ${path.join(project, "workspace")} aborted=false` }]);
    } finally {
      await client.close();
    }
  }, SLOW);

  it("tsc --init, with verbatimModuleSyntax off as import syntax in CommonJS files needs: the project's tsc type-checks tools importing sigloop; gen and agent agree", async () => {
    await tscInit(project);
    const tsconfig = path.join(project, "tsconfig.json");
    writeFileSync(tsconfig, readFileSync(tsconfig, "utf8").replace('"verbatimModuleSyntax": true', '"verbatimModuleSyntax": false'));
    expect(readFileSync(tsconfig, "utf8")).toMatch(/"module": "nodenext"[^]*"exactOptionalPropertyTypes": true[^]*"strict": true[^]*"verbatimModuleSyntax": false/);
    await expectProjectTypeChecks(project);
    expect((await sigloop(project, ["gen", "--check"])).code).toBe(0);
    const result = await scriptedAgentRun(project, ["--workspace", "workspace"], {});
    expect(result.stdout).toBe("done\n");
    expect(result.toolResults).toEqual([`hello ${path.join(project, "workspace")} aborted=false`, "a note\n"]);
  }, SLOW);

  it("a type error in a tool: sigloop gen reports it at file:line:col, writes nothing and exits 1", async () => {
    writeFiles(project, {
      "broken/bad.ts": `/**
 * Doubles a number.
 * @param n The number.
 */
export function double(n: number): number {
  const text: string = n * 2;
  return text;
}
`,
    });
    try {
      const gen = await sigloop(project, ["gen", "--tools", "broken", "--out", "broken.json"]);
      expect(gen.code).toBe(1);
      expect(gen.stderr).toContain("broken/bad.ts:6:9 error: Type 'number' is not assignable to type 'string'.");
      expect(gen.stderr).toContain("nothing written");
    } finally {
      rmSync(path.join(project, "broken"), { recursive: true, force: true });
    }
  }, SLOW);

  it("require('sigloop') and import('sigloop') from CommonJS", async () => {
    writeFiles(project, {
      "app.cjs": `const [major, minor] = process.versions.node.split(".").map(Number);
const required = major > 20 || (major === 20 && minor >= 19) ? typeof require("sigloop").createAgent : "function";
import("sigloop").then((sigloop) => console.log(required, typeof sigloop.createAgent, typeof sigloop.toolContext));
`,
    });
    const app = await run(process.execPath, ["app.cjs"], { cwd: project });
    expect(app.stdout).toBe("function function function\n");
    expect(app.code).toBe(0);
  }, SLOW);

  it("upgrading sigloop makes schemas that depend on it stale: sigloop agent exits 5 naming sigloop gen", async () => {
    const manifest = path.join(project, "node_modules", "sigloop", "package.json");
    const original = readFileSync(manifest, "utf8");
    try {
      writeFileSync(manifest, original.replace(/"version": "[^"]+"/, '"version": "99.0.0"'));
      const result = await sigloop(project, ["agent", "hi"]);
      expect(result.code).toBe(5);
      expect(result.stderr).toContain("out of date");
      expect(result.stderr).toContain("Run npx sigloop gen to regenerate it.");
      expect((await sigloop(project, ["gen", "--check"])).code).toBe(1);
    } finally {
      writeFileSync(manifest, original);
    }
  }, SLOW);

  it("sigloop demo: the scripted model's mistakes and the answer, with nothing else installed", async () => {
    const demo = await sigloop(project, ["demo"]);
    expect(demo.stderr).toContain("the model is SCRIPTED");
    expect(demo.stderr).toContain('$ npx sigloop agent "');
    expect(demo.stderr).toContain("answered after 7 turns");
    expect(demo.stdout).toBe(`${DEMO_ANSWER}\n`);
    expect(demo.code).toBe(0);
  }, SLOW);

  it.skipIf(!hasScript)("sigloop demo on a terminal: the answer appears once, after the progress that led to it", async () => {
    // `script` gives the bin a pseudo-terminal for stdout and stderr alike, as when the user runs it.
    const demo = await run("script", ["-qfec", `'${binPath(project)}' demo`, "/dev/null"], { cwd: project, env: { PATH: process.env.PATH, TERM: "dumb", NO_COLOR: "1" } });
    const screen = demo.stdout.replace(/\r\n/g, "\n");
    expect(demo.code).toBe(0);
    expect(screen.split(DEMO_ANSWER).length - 1).toBe(1);
    expect(screen.indexOf("▶ the scripted model's request 7")).toBeLessThan(screen.indexOf(DEMO_ANSWER));
    expect(screen.indexOf(DEMO_ANSWER)).toBeLessThan(screen.indexOf("answered after 7 turns"));
  }, SLOW);

  it("sigloop --help lists the commands, --version (also through npx) prints the version, no command or an unknown one exits 2 on stderr, Node 20 is named and refused", async () => {
    const help = await sigloop(project, ["--help"]);
    expect(help.code).toBe(0);
    for (const command of ["gen", "agent", "mcp", "demo"]) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    const version = await sigloop(project, ["--version"]);
    expect(version.stdout).toBe(`${sigloopVersion}\n`);
    const npx = await run("npx", ["--no-install", "sigloop", "--version"], { cwd: project, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    expect(npx.stdout).toBe(`${sigloopVersion}\n`);
    expect(npx.code).toBe(0);
    const bare = await sigloop(project, []);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe("");
    expect(bare.stderr).toMatch(/^error: no command given\nusage: sigloop <command> \[flags\]\n/);
    const unknown = await sigloop(project, ["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const old = oldNode();
    for (const args of [["--version"], ["agent", "hi"], ["gen"]]) {
      const onOldNode = await run(old.path, [path.join(project, "node_modules", "sigloop", "dist", "src", "bin", "sigloop.js"), ...args], { cwd: project, env: { PATH: process.env.PATH } });
      expect(onOldNode.stderr).toBe(`sigloop: Node ${old.version} is not supported; sigloop needs Node 22.19 or later (22 or 24). Install one (for example \`nvm install 22\`) and run the command again.\n`);
      expect(onOldNode.stdout).toBe("");
      expect(onOldNode.code).toBe(2);
    }
    const agentHelp = await sigloop(project, ["agent", "--help"]);
    expect(agentHelp.stdout).toContain('Usage: npx sigloop agent [flags] "prompt"');
    expect(agentHelp.stdout).toContain("--context-window TOKENS");
    expect(agentHelp.stdout).toContain("6 the conversation does not fit the context window");
  }, SLOW);
});
