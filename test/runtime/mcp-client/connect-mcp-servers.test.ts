/**
 * The library API against the project's recording server: `connectMcpServers` beside a local executor,
 * the origin and annotations it carries, `close()`, and a fast-check property: whatever arguments the
 * model sends, the run never crashes and the server receives only arguments that match the schema.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import { connectMcpServers, type McpServers } from "../../../src/runtime/mcp-client/connect-mcp-servers.js";
import { parseMcpConfig } from "../../../src/runtime/mcp-client/mcp-config.js";
import { fixtureExecutor, projectRoot, tempDir } from "../../cli/support.js";
import { faultServer, recorded } from "../../support/mcp-fault-server.js";

const record = path.join(tempDir(), "record.jsonl");
let servers: McpServers;

/** The recording server beside the fixture tools, through the library API as a program uses it. */
async function connectRecorder(callTimeoutMs: number): Promise<McpServers> {
  const parsed = parseMcpConfig("mcp.json", JSON.stringify({ mcpServers: { rec: faultServer("record", record) } }), {});
  if (!parsed.ok) throw new Error(parsed.error);
  const connected = await connectMcpServers({ config: parsed.config, local: fixtureExecutor(), callTimeoutMs, onNotice: () => undefined });
  if (!connected.ok) throw new Error(connected.error);
  return connected.servers;
}

beforeAll(async () => {
  servers = await connectRecorder(5_000);
});
afterAll(() => servers.close());

const context = () => ({ workspace: projectRoot, signal: new AbortController().signal });

function recordedCalls(): Array<Record<string, unknown>> {
  return recorded(record).filter((entry) => entry.call !== undefined);
}

it("offers local and server tools in one executor, with each tool's origin and annotations", async () => {
  const names = servers.executor.definitions.map((tool) => tool.function.name);
  expect(names).toEqual(["echo", "fail", "wait_for_abort", "rec__shout", "rec__free", "rec__slow", "rec__fails", "rec__picture"]);
  expect(servers.executor.definitions).toBe(servers.executor.definitions);
  expect(servers.executor.describe?.("rec__shout")).toEqual({ origin: { kind: "mcp", server: "rec", tool: "shout" }, annotations: { readOnlyHint: true } });
  expect(servers.executor.describe?.("rec__free")).toEqual({ origin: { kind: "mcp", server: "rec", tool: "free" } });
  expect(servers.executor.describe?.("echo")).toMatchObject({ origin: { kind: "local" } });
  expect(await servers.executor.execute({ id: "1", type: "function", function: { name: "echo", arguments: '{"text":"x"}' } }, context())).toEqual({ status: "ok", content: "echo: x" });
  expect(await servers.executor.execute({ id: "2", type: "function", function: { name: "rec__shout", arguments: '{"text":"x"}' } }, context())).toEqual({ status: "ok", content: "X" });
});

it("a call past its time limit is a timeout result, and the server is told to cancel it", async () => {
  const timed = await connectRecorder(300);
  try {
    const outcome = await timed.executor.execute({ id: "t", type: "function", function: { name: "rec__slow", arguments: "{}" } }, context());
    expect(outcome).toEqual({ status: "timeout", content: "The tool rec__slow timed out: it did not finish within 300 ms, so it was stopped and has no result. Try a smaller task or another approach." });
    const deadline = Date.now() + 3000;
    while (!readFileSync(record, "utf8").includes('"cancelled"') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(readFileSync(record, "utf8")).toContain('"cancelled"');
  } finally {
    await timed.close();
  }
});

it("property: arbitrary argument JSON never crashes a call and reaches the server only when it validates", async () => {
  const schema = { type: "object", properties: { text: { type: "string" }, times: { type: "integer", minimum: 1 }, loud: { type: "boolean" } }, required: ["text"], additionalProperties: false };
  const validate = new Ajv2020({ strict: false }).compile(schema);
  const value = fc.oneof(fc.string(), fc.integer({ min: -3, max: 5 }), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom("3", "true", "x"));
  const argsObject = fc.dictionary(fc.constantFrom("text", "times", "loud", "extra", "__proto__"), value, { maxKeys: 4 });
  const argumentText = fc.oneof(argsObject.map((args) => JSON.stringify(args)), fc.string(), fc.json(), argsObject.map((args) => JSON.stringify(JSON.stringify(args))));
  let sent = 0;
  await fc.assert(
    fc.asyncProperty(argumentText, async (text) => {
      const before = recordedCalls().length;
      const outcome = await servers.executor.execute({ id: "p", type: "function", function: { name: "rec__shout", arguments: text } }, context());
      // A valid call the server itself fails (`times` of 10^15 is more than `repeat` can make) is the
      // server's error, as a result: still sent, still valid.
      expect(["ok", "invalid_arguments", "tool_error"]).toContain(outcome.status);
      const calls = recordedCalls().slice(before);
      expect(calls.length).toBe(outcome.status === "invalid_arguments" ? 0 : 1);
      for (const call of calls) expect(validate(call.arguments)).toBe(true);
      sent += calls.length;
    }),
    // Random text rarely validates: two valid calls always run, so "sent" cannot be zero by chance.
    { numRuns: 150, examples: [['{"text":"hi"}'], ['{"text":"hi","times":2,"loud":true}']] },
  );
  expect(sent).toBeGreaterThan(0);
});

it("close() ends the server", async () => {
  const closing = await connectRecorder(5_000);
  await closing.executor.execute({ id: "c", type: "function", function: { name: "rec__shout", arguments: '{"text":"pid"}' } }, context());
  const pid = (JSON.parse(readFileSync(record, "utf8").trim().split("\n").at(-1)!) as { pid: number }).pid;
  await closing.close();
  expect(() => process.kill(pid, 0)).toThrow();
  writeFileSync(record, "");
});
