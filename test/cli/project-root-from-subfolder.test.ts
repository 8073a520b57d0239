/**
 * The `sigloop` bin run from a subfolder of a project: agent and mcp use the nearest folder upwards with
 * `generated/schemas.json` (and its `.env`), gen the nearest with `package.json`; one stderr line names the
 * root; relative flags and the default workspace stay the current folder. The bin runs from its sources.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { fixtureToolsDir, generatedSchemasText, projectRoot, tempDir } from "./support.js";

const bin = path.join(projectRoot, "src", "bin", "sigloop.ts");
const tsx = import.meta.resolve("tsx");

function sigloop(argv: string[], cwd: string, stdin = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", tsx, bin, ...argv], { cwd, env: { PATH: process.env.PATH, NO_COLOR: "1" }, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

let server: ScriptedServer;
let project: string;
let deep: string;

beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
  project = tempDir();
  deep = path.join(project, "src", "deep");
  mkdirSync(deep, { recursive: true });
  mkdirSync(path.join(project, "generated"));
  writeFileSync(path.join(project, "generated", "schemas.json"), generatedSchemasText(fixtureToolsDir, path.join(project, "generated", "schemas.json")));
  writeFileSync(path.join(project, ".env"), `OPENAI_API_KEY=sk-from-the-root-env\nOPENAI_BASE_URL=${server.baseURL}\n`);
  writeFileSync(path.join(deep, "note.txt"), "in the subfolder\n");
});
afterAll(() => server.close());

describe("run from a subfolder", () => {
  it("agent: the root's schemas and .env, the line naming the root, the workspace still the current folder", async () => {
    server.setScript([{ toolCalls: [{ id: "c1", name: "echo", arguments: '{"text":"hi"}' }] }, { content: "done" }]);
    const run = await sigloop(["agent", "--transcript", "t.jsonl", "go"], deep);
    expect(run.stderr).toContain(`sigloop: project root ${project} (the nearest folder upwards with generated/schemas.json)\n`);
    expect(run).toMatchObject({ code: 0, stdout: "done\n" });
    const tools = (server.requests.at(-1)?.body?.tools ?? []) as Array<{ function: { name: string } }>;
    expect(tools.map((tool) => tool.function.name)).toContain("echo");
    expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer sk-from-the-root-env");
    expect(existsSync(path.join(deep, "t.jsonl"))).toBe(true);
  }, 60_000);

  it("agent in the root itself prints no root line; --schemas named skips the search", async () => {
    server.setScript([{ content: "root" }, { content: "named" }]);
    const inRoot = await sigloop(["agent", "go"], project);
    expect(inRoot).toMatchObject({ code: 0, stdout: "root\n" });
    expect(inRoot.stderr).not.toContain("project root");
    const named = await sigloop(["agent", "--schemas", "../../generated/schemas.json", "go"], deep);
    expect(named.stderr).not.toContain("project root");
    // Without the root's .env there is no key: the named file was used from the current folder's view.
    expect(named.code).toBe(2);
    expect(named.stderr).toContain("OPENAI_API_KEY is not set");
  }, 60_000);

  it("mcp: serves the root's schemas, the line on stderr, stdout untouched", async () => {
    const run = await sigloop(["mcp", "--workspace", "."], deep);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`sigloop: project root ${project} (the nearest folder upwards with generated/schemas.json)\n`);
  }, 60_000);

  it("gen: the nearest package.json's tools/ and generated/, flags relative to the current folder", async () => {
    const app = tempDir();
    writeFileSync(path.join(app, "package.json"), '{ "name": "app", "type": "module" }\n');
    mkdirSync(path.join(app, "tools"));
    mkdirSync(path.join(app, "lib", "sub"), { recursive: true });
    writeFileSync(path.join(app, "tools", "greet.ts"), "/**\n * Greets.\n * @param name Who.\n */\nexport function greet(name: string): string {\n  return name;\n}\n");
    const run = await sigloop(["gen"], path.join(app, "lib", "sub"));
    expect(run.stderr).toContain(`sigloop: project root ${app} (the nearest folder upwards with package.json)\n`);
    expect(run.code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(app, "generated", "schemas.json"), "utf8")).tools[0].function.name).toBe("greet");
    const flags = await sigloop(["gen", "--out", "here.json"], path.join(app, "lib", "sub"));
    expect(flags.code).toBe(0);
    expect(existsSync(path.join(app, "lib", "sub", "here.json"))).toBe(true);
  }, 60_000);
});
