/**
 * `--strict` / `--no-strict`: which definitions the CLI sends, the progress line saying so, and that a
 * model's `null` for read_file's optional parameters reads from the top with the default limit in both
 * modes while `{"path": null}` stays an argument error.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAgentArgs } from "../../src/cli/parse-agent-args.js";
import { toolModeLine } from "../../src/cli/tool-mode-line.js";
import { isOpenAIEndpoint } from "../../src/runtime/model/openai-endpoint.js";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import type { SchemasFile } from "../../src/shared/schemas-file.js";
import { cliEnv, projectRoot, runCliInProcess, SENTINEL_KEY, tempDir, writeFixtureSchemas } from "./support.js";

let server: ScriptedServer;
let workspace: string;
const outputs: string[] = [];
const builtIn = JSON.parse(readFileSync(path.join(projectRoot, "generated/schemas.json"), "utf8")) as SchemasFile;

beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
  workspace = tempDir();
  writeFileSync(path.join(workspace, "a.txt"), "one\ntwo\nthree\n");
});
afterAll(async () => {
  await server.close();
  expect(outputs.join("\n")).not.toContain(SENTINEL_KEY);
});

async function cli(argv: string[]) {
  const run = await runCliInProcess(["--workspace", workspace, ...argv], cliEnv(server.baseURL));
  outputs.push(run.stdout, run.stderr);
  return run;
}

function toolMessages(index: number): { tool_call_id: string; content: string }[] {
  const messages = server.requests[index]?.body?.messages as { role: string; tool_call_id: string; content: string }[];
  return messages.filter((message) => message.role === "tool");
}

describe.each([
  ["--strict", "tools: strict (--strict)", () => builtIn.strictTools],
  ["--no-strict", "tools: lenient (--no-strict)", () => builtIn.tools],
])("%s", (flag, line, sent) => {
  it("sends those definitions, says so once, reads null as not given and null for a required path as an error", async () => {
    server.setScript([
      {
        toolCalls: [
          { id: "c1", name: "read_file", arguments: '{"path": "a.txt", "offset": null, "limit": null}' },
          { id: "c2", name: "read_file", arguments: '{"path": null, "offset": null, "limit": null}' },
        ],
      },
      { content: "Read it." },
    ]);
    const first = server.requests.length;
    const run = await cli([flag, "read a.txt"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Read it.\n");
    expect(run.stderr.split("\n").filter((entry) => entry.startsWith("tools: "))).toEqual([line]);
    expect(server.requests[first]?.violations).toEqual([]);
    expect(server.requests[first]?.body?.tools).toEqual(sent());
    const [read, missing] = toolMessages(first + 1);
    expect(read).toEqual({ role: "tool", tool_call_id: "c1", content: "one\ntwo\nthree\n" });
    expect(missing?.content).toContain("The arguments for read_file do not match its parameters, so it was not run:\n- path: expected string, got null");
  });
});

describe("the default", () => {
  it("is lenient for an endpoint that is not OpenAI's, and the line says how to turn strict on", async () => {
    server.setScript([{ content: "Hi." }]);
    const first = server.requests.length;
    const run = await cli(["hello"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("tools: lenient (the endpoint is not OpenAI's; --strict turns it on)\n");
    expect(server.requests[first]?.body?.tools).toEqual(builtIn.tools);
  });

  it.each([
    [undefined, true], ["", true], ["https://api.openai.com/v1", true], ["https://API.OpenAI.com/v1/", true],
    ["https://my-resource.openai.azure.com/openai/deployments/gpt", true], ["http://127.0.0.1:8080/v1", false],
    ["https://api.deepseek.com/v1", false], ["https://api.openai.com.example.net/v1", false], ["https://openai.azure.com.evil.io", false],
  ])("is strict for %j: %s", (baseURL, strict) => {
    expect(isOpenAIEndpoint(baseURL)).toBe(strict);
  });
});

describe("the flags and the line", () => {
  it("--strict and --no-strict take no value; the last one wins; neither leaves the choice to the endpoint", () => {
    expect(parseAgentArgs(["--strict", "hi"])).toMatchObject({ ok: true, args: { strict: true, prompt: "hi" } });
    expect(parseAgentArgs(["hi", "--strict", "--no-strict"])).toMatchObject({ ok: true, args: { strict: false } });
    expect(parseAgentArgs(["hi"])).toEqual({ ok: true, args: { prompt: "hi", stream: true, help: false } });
    expect(parseAgentArgs(["--strict=yes", "hi"])).toEqual({ ok: false, error: "--strict takes no value" });
  });

  it("names the tools that go out lenient in strict mode, and why the mode is on", () => {
    const withLenient = { ...builtIn, strictTools: builtIn.strictTools!.map((tool) => (tool.function.name === "get_time" ? { ...tool, function: { ...tool.function, strict: false } } : tool)) };
    expect(toolModeLine(true, false, withLenient)).toBe("tools: strict (the endpoint is OpenAI's; --no-strict turns it off); sent lenient, having no strict form: get_time");
    expect(toolModeLine(true, false, builtIn)).toBe("tools: strict (the endpoint is OpenAI's; --no-strict turns it off)");
  });
});

describe("schemas without a usable strict form", () => {
  it("--strict with a schemas file written before strict mode: exit 5, run npm run gen or pass --no-strict", async () => {
    const dir = tempDir();
    const file = writeFixtureSchemas(dir);
    const old = JSON.parse(readFileSync(file, "utf8")) as SchemasFile;
    delete old.strictTools;
    writeFileSync(file, JSON.stringify(old, null, 2));
    const run = await cli(["--strict", "--schemas", file, "hello"]);
    expect(run.code).toBe(5);
    expect(run.stderr).toBe(`error: ${file} has no strictTools (it was written before strict mode existed). Run npm run gen -- --tools test/cli/fixtures/tools --out ${file} to regenerate it, or pass --no-strict.\n`);
  });

  it("a strict definition outside the dialect is refused by the server like OpenAI does: exit 3 naming the function", async () => {
    const dir = tempDir();
    const file = writeFixtureSchemas(dir);
    const edited = JSON.parse(readFileSync(file, "utf8")) as SchemasFile;
    const echo = edited.strictTools!.find((tool) => tool.function.name === "echo")!;
    (echo.function.parameters.properties.text as Record<string, unknown>).minLength = 1;
    writeFileSync(file, JSON.stringify(edited, null, 2));
    server.setScript([{ content: "never" }]);
    const run = await cli(["--strict", "--schemas", file, "hello"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("Invalid schema for function 'echo': In context=('properties', 'text'), 'minLength' is not permitted.");
  });
});
