/**
 * `--mcp FILE` in the CLI, in this process, against the scripted model through the real SDK and real MCP
 * servers started from node_modules/.bin (server-everything, server-filesystem) and the project's own
 * fault servers (test/fixtures/mcp-servers/fault-server.mjs), which record what they receive.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/runtime/loop/messages.js";
import type { ToolDefinition } from "../../src/shared/schemas-file.js";
import { faultServer, recorded } from "../support/mcp-fault-server.js";
import { cliEnv, projectRoot, readTranscriptLines, runCliInProcess, tempDir, useCliFixture, type CliRun } from "./support.js";

const fx = useCliFixture();
beforeEach(() => fx.server.setScript([]));

const bin = (name: string) => path.join(projectRoot, "node_modules/.bin", name);
function writeConfig(servers: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const file = path.join(tempDir(), "mcp.json");
  writeFileSync(file, JSON.stringify({ mcpServers: servers, ...extra }));
  return file;
}

/** These runs are about the client, so every call is allowed; the approval a server's tool needs has its own test. */
async function cli(argv: string[], env = cliEnv(fx.server.baseURL), allow = ["--allow", "*"]): Promise<CliRun> {
  const run = await runCliInProcess(["--schemas", fx.schemas, "--no-stream", ...allow, ...argv], env, fx.dir);
  fx.outputs.push(run.stdout, run.stderr);
  return run;
}

function toolResults(): Array<{ id: string; content: string }> {
  const messages = fx.server.requests.at(-1)?.body?.messages as ChatMessage[];
  return messages.filter((message) => message.role === "tool").map((message) => ({ id: (message as { tool_call_id: string }).tool_call_id, content: message.content as string }));
}

function offeredTools(index = -1): ToolDefinition[] {
  return fx.server.requests.at(index)?.body?.tools as ToolDefinition[];
}

describe("a real server: server-everything", () => {
  it("offers its tools as everything__<tool> beside the local ones, the schema as listed without $schema, and calls echo", async () => {
    const config = writeConfig({ everything: { command: bin("mcp-server-everything"), args: ["stdio"] } });
    fx.server.setScript([{ toolCalls: [{ id: "e1", name: "everything__echo", arguments: '{"message":"hi"}' }] }, { content: "done" }]);
    const run = await cli(["--mcp", config, "say hi"]);
    expect(run).toMatchObject({ code: 0, stdout: "done\n" });
    expect(toolResults()).toEqual([{ id: "e1", content: "Echo: hi" }]);
    const echo = offeredTools().find((tool) => tool.function.name === "everything__echo");
    expect(echo).toEqual({
      type: "function",
      function: {
        name: "everything__echo",
        description: "Echoes back the input string",
        parameters: { type: "object", properties: { message: { type: "string", description: "Message to echo" } }, required: ["message"] },
      },
    });
    expect(offeredTools().slice(0, 3).map((tool) => tool.function.name)).toEqual(["echo", "fail", "wait_for_abort"]);
    // Byte-identical on both requests: the scripted server flags any change within a conversation.
    expect(fx.server.requests.flatMap((request) => [...request.flags, ...request.violations])).toEqual([]);
  });

  it("gives a server the SDK's default environment plus its own env, never the API key", async () => {
    const config = writeConfig({ everything: { command: bin("mcp-server-everything"), args: ["stdio"], env: { MY_SETTING: "${MY_SOURCE:-fallback}" } } });
    fx.server.setScript([{ toolCalls: [{ id: "v1", name: "everything__get-env", arguments: "{}" }] }, { content: "ok" }]);
    const run = await cli(["--mcp", config, "env?"], cliEnv(fx.server.baseURL, { ANTHROPIC_API_KEY: "sk-ant-secret-value-123456", PATH: process.env.PATH }));
    expect(run.code).toBe(0);
    const env = JSON.parse(toolResults()[0]!.content) as Record<string, string>;
    expect(env.MY_SETTING).toBe("fallback");
    expect(env.PATH).toBe(process.env.PATH);
    expect(Object.keys(env).filter((key) => !["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "MY_SETTING"].includes(key))).toEqual([]);
  });
});

describe("a real server: server-filesystem", () => {
  it("reads a file in the directory it was given", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "notes.txt"), "launch on Monday\n");
    const config = writeConfig({ fs: { command: bin("mcp-server-filesystem"), args: [dir] } });
    fx.server.setScript([{ toolCalls: [{ id: "f1", name: "fs__read_text_file", arguments: JSON.stringify({ path: path.join(dir, "notes.txt"), head: null }) }] }, { content: "Monday" }]);
    const run = await cli(["--mcp", config, "when?"]);
    expect(run).toMatchObject({ code: 0, stdout: "Monday\n" });
    expect(toolResults()[0]?.content).toBe("launch on Monday\n");
  });
});

describe("every call is checked before it is sent", () => {
  it("drops invented keys, converts a string number, reads null as absent; the server receives only valid arguments", async () => {
    const record = path.join(tempDir(), "record.jsonl");
    const config = writeConfig({ rec: faultServer("record", record) });
    fx.server.setScript([
      {
        toolCalls: [
          { id: "a", name: "rec__shout", arguments: '{"text":"hi","times":"2","loud":null,"volume":11}' },
          { id: "b", name: "rec__shout", arguments: '{"times":2}' },
          { id: "c", name: "rec__free", arguments: '{"a":"x","extra":true}' },
          { id: "d", name: "rec__nothing", arguments: "{}" },
          { id: "e", name: "rec__fails", arguments: "{}" },
          { id: "f", name: "rec__picture", arguments: "{}" },
        ],
      },
      { content: "done" },
    ]);
    const run = await cli(["--mcp", config, "go"]);
    expect(run.code).toBe(0);
    const results = toolResults();
    expect(results[0]?.content).toBe('[ignored unknown arguments: volume]\n[converted arguments: times from string "2" to 2]\nHIHI');
    expect(results[1]?.content).toBe(
      [
        "The arguments for rec__shout do not match its parameters, so it was not run:",
        "- text: missing (required, string)",
        "Parameters: text (string, required); times (integer, optional); loud (boolean, optional)",
        "Fix these and call rec__shout again.",
      ].join("\n"),
    );
    expect(results[2]?.content).toBe('{"a":"x","extra":true}');
    expect(results[3]?.content).toBe(
      'The tool "rec__nothing" is not available: the MCP server "rec" does not offer it in this run. Available tools: echo, fail, wait_for_abort, rec__shout, rec__free, rec__slow, rec__fails, rec__picture.',
    );
    expect(results[4]?.content).toBe(
      "The tool rec__fails itself failed: Error: the disk is full",
    );
    expect(results[5]?.content).toBe("a red dot\n[image: image/png, 12345 bytes, not shown]");
    const calls = recorded(record).filter((entry) => entry.call !== undefined).map(({ call, arguments: args }) => ({ call, args }));
    expect(calls).toEqual([
      { call: "shout", args: { text: "hi", times: 2 } },
      { call: "free", args: { a: "x", extra: true } },
      { call: "fails", args: {} },
      { call: "picture", args: {} },
    ]);
  });

  it("reads null as absent through $refs into 2020-12 $defs as through draft-07 definitions: the server receives the key left out", async () => {
    const record = path.join(tempDir(), "record.jsonl");
    const config = writeConfig({ rec: faultServer("defs", record) });
    const args = { p: { x: 2, label: null }, path: [{ x: 1, label: null }, { x: 3, label: "c" }], box: { corner: { x: 4, label: null } } };
    const sent = { p: { x: 2 }, path: [{ x: 1 }, { x: 3, label: "c" }], box: { corner: { x: 4 } } };
    fx.server.setScript([
      {
        toolCalls: [
          { id: "a", name: "rec__plot", arguments: JSON.stringify(args) },
          { id: "b", name: "rec__plot07", arguments: JSON.stringify(args) },
          { id: "c", name: "rec__measure", arguments: '{"size":{"w":5,"unit":null}}' },
          { id: "d", name: "rec__plot", arguments: '{"p":{"x":null}}' },
        ],
      },
      { content: "done" },
    ]);
    const run = await cli(["--mcp", config, "go"]);
    expect(run.code).toBe(0);
    const results = toolResults();
    expect(results.slice(0, 3).map((result) => result.content)).toEqual([JSON.stringify(sent), JSON.stringify(sent), '{"size":{"w":5}}']);
    expect(results[3]?.content).toContain("- p.x: expected number, got null");
    const calls = recorded(record).filter((entry) => entry.call !== undefined).map(({ call, arguments: received }) => ({ call, received }));
    expect(calls).toEqual([
      { call: "plot", received: sent },
      { call: "plot07", received: sent },
      { call: "measure", received: { size: { w: 5 } } },
    ]);
  });

  it("a server's tool that does not say readOnlyHint needs approval: without a terminal or --allow it is refused and never sent", async () => {
    const record = path.join(tempDir(), "record.jsonl");
    const config = writeConfig({ rec: faultServer("record", record) });
    fx.server.setScript([
      {
        toolCalls: [
          { id: "a", name: "rec__shout", arguments: '{"text":"hi"}' },
          { id: "b", name: "rec__free", arguments: '{"a":"x"}' },
        ],
      },
      { content: "done" },
    ]);
    const run = await cli(["--mcp", config, "go"], cliEnv(fx.server.baseURL), []);
    expect(run.code).toBe(0);
    expect(toolResults().map((result) => result.content)).toEqual(["HI", "The user did not approve this call to rec__free, so it was not run."]);
    const calls = recorded(record).filter((entry) => entry.call !== undefined).map(({ call }) => call);
    expect(calls).toEqual(["shout"]);
  });

  it("--read-only offers no server tool that needs approval; a call to one is a call to an unknown tool, never sent", async () => {
    const record = path.join(tempDir(), "record.jsonl");
    const config = writeConfig({ rec: faultServer("record", record) });
    fx.server.setScript([
      { toolCalls: [{ id: "a", name: "rec__free", arguments: '{"a":"x"}' }, { id: "b", name: "rec__shout", arguments: '{"text":"hi"}' }] },
      { content: "done" },
    ]);
    const run = await cli(["--mcp", config, "--read-only", "go"], cliEnv(fx.server.baseURL), []);
    expect(run.code).toBe(0);
    expect(offeredTools().map((tool) => tool.function.name)).toEqual(["echo", "fail", "wait_for_abort", "rec__shout"]);
    expect(toolResults().map((result) => result.content)).toEqual(['There is no tool named "rec__free". Available tools: echo, fail, wait_for_abort, rec__shout.', "HI"]);
    expect(recorded(record).filter((entry) => entry.call !== undefined).map(({ call }) => call)).toEqual(["shout"]);
    expect(run.stderr).not.toContain("approval");
  });

  it("--allow names a server's tool: no warning, and that tool runs without asking", async () => {
    const record = path.join(tempDir(), "record.jsonl");
    const config = writeConfig({ rec: faultServer("record", record) });
    fx.server.setScript([{ toolCalls: [{ id: "a", name: "rec__free", arguments: '{"a":"x"}' }] }, { content: "done" }]);
    const run = await cli(["--mcp", config, "go"], cliEnv(fx.server.baseURL), ["--allow", "rec__free", "--allow", "rec__fre"]);
    expect(run.code).toBe(0);
    expect(toolResults().map((result) => result.content)).toEqual(['{"a":"x"}']);
    expect(run.stderr.split("\n").filter((line) => line.startsWith("warning: --allow"))).toEqual([
      "warning: --allow rec__fre names no offered tool (offered: echo, fail, wait_for_abort, rec__shout, rec__free, rec__slow, rec__fails, rec__picture); it allows nothing",
    ]);
  });

  it("a schema the validator cannot compile makes that tool an error result; the server's other tools work", async () => {
    const config = writeConfig({ broken: faultServer("broken-schema", path.join(tempDir(), "r.jsonl")) });
    fx.server.setScript([{ toolCalls: [{ id: "a", name: "broken__bad", arguments: '{"x":"1"}' }, { id: "b", name: "broken__good", arguments: '{"x":"1"}' }] }, { content: "ok" }]);
    const run = await cli(["--mcp", config, "go"]);
    expect(run.code).toBe(0);
    const [bad, good] = toolResults();
    expect(bad?.content).toMatch(/^The parameters schema of broken__bad, as the MCP server "broken" lists it, could not be compiled \(.*strin.*\); the tool cannot be called until the server offers a valid one\. The other tools still work\.$/);
    expect(good?.content).toBe("good ran");
  });
});

describe("lifecycle", () => {
  it("a server that exits mid-call: that call says it stopped, the next call starts it once more; after the second stop it stays out", async () => {
    const record = path.join(tempDir(), "record.jsonl");
    const config = writeConfig({ flaky: faultServer("exit-mid-call", record) });
    fx.server.setScript([
      { toolCalls: [{ id: "a", name: "flaky__crash", arguments: "{}" }] },
      { toolCalls: [{ id: "b", name: "flaky__ok", arguments: "{}" }] },
      { toolCalls: [{ id: "c", name: "flaky__crash", arguments: "{}" }] },
      { toolCalls: [{ id: "d", name: "flaky__ok", arguments: "{}" }] },
      { content: "done" },
    ]);
    const run = await cli(["--mcp", config, "go"]);
    expect(run.code).toBe(0);
    expect(toolResults().map((result) => result.content)).toEqual([
      'The tool flaky__crash has no result: its MCP server "flaky" stopped during the call. It may or may not have run; the next call starts the server again.',
      "ok ran",
      'The tool flaky__crash has no result: its MCP server "flaky" stopped during the call. It may or may not have run; it has now stopped twice, so it stays out for the rest of the run. Do without its tools or tell the user.',
      'The tool flaky__ok is not available: its MCP server "flaky" is not running (it stopped twice during this run), so it was not run. Do without it or tell the user.',
    ]);
    const pids = new Set(recorded(record).map((entry) => entry.pid));
    expect(pids.size).toBe(2);
  });

  it("a server that fails to start is left out with one line, its stderr forwarded; the run goes on", async () => {
    const config = writeConfig({ db: faultServer("fail-start", path.join(tempDir(), "r.jsonl"), { LEAK: "key ${OPENAI_API_KEY}" }), rec: faultServer("record", path.join(tempDir(), "r2.jsonl")) });
    fx.server.setScript([{ toolCalls: [{ id: "a", name: "db__query", arguments: "{}" }, { id: "b", name: "rec__shout", arguments: '{"text":"x"}' }] }, { content: "ok" }]);
    const run = await cli(["--mcp", config, "go"]);
    expect(run.code).toBe(0);
    // Escaped and key-masked like everything else we print.
    expect(run.stderr).toContain("[db] cannot open the \\x1b[31mdatabase\n[db] key ***\n");
    expect(run.stderr.match(/mcp: server "db" is left out: .*/g)).toHaveLength(1);
    const [query, shout] = toolResults();
    expect(query?.content).toMatch(/^The tool "db__query" is not available: its MCP server "db" is not running \(.+\), so it was not run\./);
    expect(shout?.content).toBe("X");
  });

  it("a server that never answers is left out after --mcp-timeout", async () => {
    const config = writeConfig({ mute: faultServer("silent", path.join(tempDir(), "r.jsonl")) });
    fx.server.setScript([{ content: "ok" }]);
    const started = Date.now();
    const run = await cli(["--mcp", config, "--mcp-timeout", "400", "go"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('mcp: server "mute" is left out: it did not finish starting within 400 ms\n');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("follows tools/list pagination", async () => {
    const config = writeConfig({ pages: faultServer("paginate", path.join(tempDir(), "r.jsonl"), { PAGES: "4" }) });
    fx.server.setScript([{ content: "ok" }]);
    await cli(["--mcp", config, "go"]);
    expect(offeredTools().map((tool) => tool.function.name).filter((name) => name.startsWith("pages__"))).toEqual(["pages__t0", "pages__t1", "pages__t2", "pages__t3"]);
  });

  it("a list_changed after the first request: the new list from the next request on, and one line", async () => {
    const config = writeConfig({ grow: faultServer("list-changed", path.join(tempDir(), "r.jsonl")) });
    fx.server.setScript([{ toolCalls: [{ id: "a", name: "grow__grow", arguments: "{}" }] }, { toolCalls: [{ id: "b", name: "grow__second", arguments: "{}" }] }, { content: "ok" }]);
    const run = await cli(["--mcp", config, "go"]);
    expect(run.code).toBe(0);
    const names = (index: number) => offeredTools(index).map((tool) => tool.function.name).filter((name) => name.startsWith("grow__"));
    expect(names(-3)).toEqual(["grow__first", "grow__grow"]);
    expect(names(-2)).toEqual(["grow__first", "grow__grow", "grow__second"]);
    expect(toolResults().at(-1)?.content).toBe("second ran");
    expect(run.stderr.match(/mcp: server "grow" changed its tools \(3 now\); the new list is offered from the next request on/g)).toHaveLength(1);
  });
});

describe("strict mode", () => {
  it("offers the strict form of each server tool, accepted by a strict endpoint, and validates as usual", async () => {
    const record = path.join(tempDir(), "record.jsonl");
    const config = writeConfig({ rec: faultServer("record", record) });
    fx.server.setScript([{ toolCalls: [{ id: "a", name: "rec__shout", arguments: '{"text":"hi","times":null,"loud":null}' }] }, { content: "ok" }]);
    const run = await cli(["--mcp", config, "--strict", "go"]);
    expect(run.code).toBe(0);
    const shout = offeredTools().find((tool) => tool.function.name === "rec__shout");
    expect(shout?.function.strict).toBe(true);
    expect(shout?.function.parameters).toMatchObject({ additionalProperties: false, required: ["text", "times", "loud"] });
    const free = offeredTools().find((tool) => tool.function.name === "rec__free");
    expect(free?.function.strict).toBe(false);
    expect(run.stderr).toContain('mcp: tool "rec__free" is offered with strict: false in strict mode');
    expect(fx.server.requests.flatMap((request) => request.violations)).toEqual([]);
    expect(toolResults()[0]?.content).toBe("HI");
  });
});

describe("strict mode with $defs", () => {
  it("offers a $defs tool's optional members as required and nullable, and a strict call that skips them reaches the server without them", async () => {
    const record = path.join(tempDir(), "record.jsonl");
    const config = writeConfig({ rec: faultServer("defs", record) });
    const args = { p: { x: 2, label: null }, path: [{ x: 1, label: null }], box: null };
    fx.server.setScript([{ toolCalls: [{ id: "a", name: "rec__plot", arguments: JSON.stringify(args) }] }, { content: "ok" }]);
    const run = await cli(["--mcp", config, "--strict", "go"]);
    expect(run.code).toBe(0);
    const plot = offeredTools().find((tool) => tool.function.name === "rec__plot");
    expect(plot?.function.strict).toBe(true);
    expect(plot?.function.parameters).toMatchObject({ required: ["p", "path", "box"], definitions: { pt: { required: ["x", "label"], properties: { label: { type: ["string", "null"] } } } } });
    expect(fx.server.requests.flatMap((request) => request.violations)).toEqual([]);
    expect(toolResults()[0]?.content).toBe('{"p":{"x":2},"path":[{"x":1}]}');
    expect(recorded(record).filter((entry) => entry.call !== undefined).map((entry) => entry.arguments)).toEqual([{ p: { x: 2 }, path: [{ x: 1 }] }]);
  });
});

describe("the command line", () => {
  it("--help describes --mcp and --mcp-timeout; a timeout past a timer's limit is refused (exit 2)", async () => {
    const help = await cli(["--help"]);
    expect(help.stdout).toContain("--mcp FILE            also offer the tools of the MCP servers in FILE");
    expect(help.stdout).toContain("A tool t of server fs is offered as fs__t");
    expect(help.stdout).toContain("--mcp-timeout MS      how long each MCP server may take to start and list its tools (default 30000)");
    const tooLong = await cli(["--mcp-timeout", "2147483648", "go"]);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain("--mcp-timeout can be at most 2147483647 ms");
  });
});

describe("the config file", () => {
  const refusals: Array<[string, string, RegExp]> = [
    ["not JSON", "{ nope", /mcp\.json: not valid JSON \(.*position 2.*\)/],
    ["no mcpServers", '{"servers":{}}', /mcp\.json: no "mcpServers" object/],
    ["neither command nor url", '{"mcpServers":{"x":{"args":[]}}}', /mcp\.json: server "x": has neither "command" \(a program to start\) nor "url"/],
    ["an unset variable", '{"mcpServers":{"x":{"command":"node","env":{"K":"${SIGLOOP_TEST_UNSET}"}}}}', /server "x": \$\{SIGLOOP_TEST_UNSET\} in env\.K is not set and has no default/],
    ["sse", '{"mcpServers":{"x":{"type":"sse","url":"http://127.0.0.1:1/sse"}}}', /server "x": "type": "sse" .* is not supported/],
  ];
  for (const [what, text, message] of refusals) {
    it(`refuses ${what} before anything starts (exit 2)`, async () => {
      const file = path.join(tempDir(), "mcp.json");
      writeFileSync(file, text);
      const before = fx.server.requests.length;
      const run = await cli(["--mcp", file, "go"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain(file);
      expect(fx.server.requests.length).toBe(before);
    });
  }

  it("refuses a directory or a FIFO as FILE, in the words --transcript and --resume use (exit 2)", async () => {
    const dir = tempDir();
    const fifo = path.join(dir, "mcp.fifo");
    execFileSync("mkfifo", [fifo]);
    const before = fx.server.requests.length;
    for (const [file, kind] of [[dir, "a directory"], [fifo, "a FIFO (named pipe)"]] as const) {
      const run = await cli(["--mcp", file, "go"]);
      expect(run.code).toBe(2);
      expect(run.stderr.split("\n")[0]).toBe(`error: --mcp ${file} is ${kind}, not a regular file; give the path of the JSON file with "mcpServers"`);
    }
    expect(fx.server.requests.length).toBe(before);
  });

  it("skips a disabled server and warns once per key it does not use", async () => {
    const record = path.join(tempDir(), "r.jsonl");
    const config = writeConfig({ off: { ...faultServer("record", record), disabled: true }, rec: { ...faultServer("record", record), autoApprove: [], timeout: 5 } }, { globalShortcut: "x" });
    fx.server.setScript([{ content: "ok" }]);
    const run = await cli(["--mcp", config, "go"]);
    expect(run.code).toBe(0);
    expect(offeredTools().some((tool) => tool.function.name.startsWith("off__"))).toBe(false);
    expect(run.stderr).toContain(`warning: ${config}: server "rec": "autoApprove" is not used by sigloop and is ignored\n`);
    expect(run.stderr).toContain(`warning: ${config}: server "rec": "timeout" is not used by sigloop and is ignored\n`);
    expect(run.stderr).not.toContain("globalShortcut");
  });

  it("two tools that end up with one name are a start-up error naming both (exit 2), and the servers are closed", async () => {
    const record = path.join(tempDir(), "r.jsonl");
    const config = writeConfig({ "rec.x": faultServer("record", record), rec_x: faultServer("record", record) });
    const run = await cli(["--mcp", config, "go"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`two tools would be offered as rec_x__shout: tool "shout" of MCP server "rec.x" and tool "shout" of MCP server "rec_x"`);
  });

  it("a stdio server without cwd starts in the folder the agent was run from, not the project's", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "a.txt"), "here");
    const config = writeConfig({ fs: { command: bin("mcp-server-filesystem"), args: ["."] } });
    fx.server.setScript([{ toolCalls: [{ id: "f", name: "fs__read_text_file", arguments: JSON.stringify({ path: path.join(dir, "a.txt") }) }] }, { content: "ok" }]);
    const run = await runCliInProcess(["--schemas", fx.schemas, "--no-stream", "--mcp", config, "go"], cliEnv(fx.server.baseURL), dir);
    fx.outputs.push(run.stdout, run.stderr);
    expect(run.code).toBe(0);
    expect(toolResults()[0]?.content).toBe("here");
  });

  it("relative cwd resolves against the file's folder", async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, "data"));
    writeFileSync(path.join(dir, "data", "a.txt"), "A");
    const file = path.join(dir, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { fs: { command: bin("mcp-server-filesystem"), args: ["."], cwd: "data" } } }));
    fx.server.setScript([{ toolCalls: [{ id: "f", name: "fs__read_text_file", arguments: JSON.stringify({ path: path.join(dir, "data", "a.txt") }) }] }, { content: "ok" }]);
    const run = await cli(["--mcp", file, "go"]);
    expect(run.code).toBe(0);
    expect(toolResults()[0]?.content).toBe("A");
  });
});

describe("why a server did not start, in words", () => {
  /** The one `left out` line of a run with `servers`, whose model answers at once. */
  async function leftOutLine(servers: Record<string, unknown>): Promise<string | undefined> {
    fx.server.setScript([{ content: "ok" }]);
    const run = await cli(["--mcp", writeConfig(servers), "go"]);
    expect(run.code).toBe(0);
    const lines = run.stderr.split("\n").filter((line) => line.includes("is left out"));
    expect(lines).toHaveLength(1);
    return lines[0];
  }

  // PERL_… in the server's env makes it start `detached`, without the perl launcher: both report the same.
  for (const [launcher, env] of [["the perl launcher", {}], ["detached", { PERL_SIGLOOP_TEST: "1" }]] as const) {
    it(`a stdio server whose cwd is missing or a file says so, not that its command was not found (${launcher})`, async () => {
      const dir = tempDir();
      const record = path.join(dir, "r.jsonl");
      const missing = path.join(dir, "nonexistent-dir");
      const file = path.join(dir, "a-file");
      writeFileSync(file, "");
      expect(await leftOutLine({ x: { ...faultServer("record", record, env), cwd: missing } })).toBe(`mcp: server "x" is left out: its "cwd" folder ${missing} does not exist (ENOENT)`);
      expect(await leftOutLine({ x: { ...faultServer("record", record, env), cwd: file } })).toBe(`mcp: server "x" is left out: its "cwd" ${file} is a file, not a folder (ENOTDIR)`);
      expect(await leftOutLine({ x: { ...faultServer("record", record, env), cwd: path.join(file, "sub") } })).toBe(`mcp: server "x" is left out: its "cwd" ${path.join(file, "sub")} goes through a file as if it were a folder (ENOTDIR)`);
      // With the folder there, a missing command is still said to be one.
      expect(await leftOutLine({ x: { command: path.join(dir, "no-such-program"), env, cwd: dir } })).toBe(`mcp: server "x" is left out: its command was not found (ENOENT)`);
    });
  }

  async function freePort(): Promise<number> {
    return new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
  }

  it("an http server that refuses the connection: the cause, not just `fetch failed`", async () => {
    const port = await freePort();
    expect(await leftOutLine({ remote: { url: `http://127.0.0.1:${port}/mcp` } })).toBe(
      `mcp: server "remote" is left out: it could not be reached: connection refused (ECONNREFUSED); check that the server is running at its "url"`,
    );
  });

  it("an http server that answers an error status: the status in words, what it said, what to check", async () => {
    const answers: Record<string, [number, string]> = { "/mcp-401": [401, "missing token"], "/mcp-404": [404, ""], "/mcp-500": [500, "  database\n down "] };
    const http = createHttpServer((request, response) => {
      const [status, body] = answers[request.url ?? ""] ?? [400, "?"];
      response.writeHead(status, { "content-type": "text/plain" }).end(body);
    });
    const port = await new Promise<number>((resolve) => http.listen(0, "127.0.0.1", () => resolve((http.address() as { port: number }).port)));
    try {
      const at = (route: string) => ({ remote: { url: `http://127.0.0.1:${port}${route}` } });
      expect(await leftOutLine(at("/mcp-401"))).toBe(`mcp: server "remote" is left out: it answered HTTP 401 Unauthorized (missing token); check its "headers" (the credentials it takes)`);
      expect(await leftOutLine(at("/mcp-404"))).toBe(`mcp: server "remote" is left out: it answered HTTP 404 Not Found; check its "url": it must be the server's MCP endpoint`);
      expect(await leftOutLine(at("/mcp-500"))).toBe(`mcp: server "remote" is left out: it answered HTTP 500 Internal Server Error (database down)`);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});

describe("a remote server over Streamable HTTP", () => {
  it("connects to server-everything's /mcp (the url expanded from the environment) and calls echo", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const remote = spawn(bin("mcp-server-everything"), ["streamableHttp"], { env: { PATH: process.env.PATH, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
    try {
      await new Promise<void>((resolve) => remote.stderr.setEncoding("utf8").on("data", (text: string) => text.includes("listening") && resolve()));
      const config = writeConfig({ remote: { url: "http://127.0.0.1:${PORT}/mcp", headers: { "X-Client": "${CLIENT:-sigloop}" } } });
      fx.server.setScript([{ toolCalls: [{ id: "h", name: "remote__echo", arguments: '{"message":"over http"}' }] }, { content: "ok" }]);
      const run = await cli(["--mcp", config, "go"], cliEnv(fx.server.baseURL, { PORT: String(port) }));
      expect(run.code).toBe(0);
      expect(toolResults()[0]?.content).toBe("Echo: over http");
    } finally {
      remote.kill();
    }
  });
});

describe("transcript and resume", () => {
  it("records calls under their offered names; a resumed run whose server no longer offers the tool says it is not available", async () => {
    const transcript = path.join(tempDir(), "t.jsonl");
    fx.server.setScript([{ toolCalls: [{ id: "a", name: "rec__shout", arguments: '{"text":"x"}' }] }, { content: "first" }]);
    const first = await cli(["--mcp", writeConfig({ rec: faultServer("record", path.join(tempDir(), "r.jsonl")) }), "--transcript", transcript, "go"]);
    expect(first.code).toBe(0);
    const lines = readTranscriptLines(transcript);
    expect(lines.find((line) => line.role === "assistant" && "tool_calls" in line && line.tool_calls !== undefined)).toMatchObject({ tool_calls: [{ function: { name: "rec__shout" } }] });
    expect(lines.find((line) => line.role === "tool")?.content).toBe("X");
    fx.server.setScript([{ toolCalls: [{ id: "b", name: "rec__shout", arguments: '{"text":"x"}' }] }, { content: "second" }]);
    const second = await cli(["--mcp", writeConfig({ rec: faultServer("paginate", path.join(tempDir(), "r.jsonl"), { PAGES: "1" }) }), "--resume", transcript, "again"]);
    expect(second.code).toBe(0);
    expect(toolResults().at(-1)?.content).toBe('The tool "rec__shout" is not available: the MCP server "rec" does not offer it in this run. Available tools: echo, fail, wait_for_abort, rec__t0.');
  });
});
