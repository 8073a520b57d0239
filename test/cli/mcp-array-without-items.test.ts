/**
 * An MCP server that lists `{"type": "array"}` without `items` (valid JSON Schema, refused by OpenAI with
 * a 400 that ended the run): `sigloop agent --mcp` offers the array with `items: {}` on Chat Completions
 * and Responses, in default and strict mode, the scripted server (which refuses such a schema as OpenAI
 * does) accepts every request, and the model's arguments are still validated against the server's schema.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/shared/schemas-file.js";
import { hostileServer, recorded } from "../support/mcp-fault-server.js";
import { cliEnv, runCliInProcess, tempDir, useCliFixture, type CliRun } from "./support.js";

const fx = useCliFixture();
beforeEach(() => fx.server.setScript([]));

const listed = {
  type: "object",
  properties: {
    configs: { type: "array", description: "name=value pairs" },
    values: { type: "array", items: { type: "array" } },
    interaction: { type: ["string", "array"] },
  },
  required: ["configs"],
};
const offered = {
  type: "object",
  properties: {
    configs: { type: "array", description: "name=value pairs", items: {} },
    values: { type: "array", items: { type: "array", items: {} } },
    interaction: { type: ["string", "array"], items: {} },
  },
  required: ["configs"],
};

function writeConfig(record: string): string {
  const file = path.join(tempDir(), "mcp.json");
  const script = { tools: [{ name: "topics", description: "Kafka topics", inputSchema: listed }], calls: { topics: { echo: true } } };
  writeFileSync(file, JSON.stringify({ mcpServers: { kafka: hostileServer(script, record) } }));
  return file;
}

async function cli(argv: string[], record: string): Promise<CliRun> {
  const run = await runCliInProcess(["--schemas", fx.schemas, "--no-stream", "--allow", "*", "--mcp", writeConfig(record), ...argv], cliEnv(fx.server.baseURL), fx.dir);
  fx.outputs.push(run.stdout, run.stderr);
  return run;
}

/** The server's tool as the last request offered it, in either dialect's shape. */
function offeredTopics(): { parameters: JsonSchema; strict?: boolean } | undefined {
  const tools = fx.server.requests.at(-1)?.body?.tools as Array<Record<string, unknown>>;
  const tool = tools.map((entry) => (entry.function ?? entry) as { name: string; parameters: JsonSchema; strict?: boolean }).find((entry) => entry.name === "kafka__topics");
  return tool === undefined ? undefined : { parameters: tool.parameters, ...(tool.strict !== undefined ? { strict: tool.strict } : {}) };
}

/** What the model received for each call, in either dialect's history. */
function toolResults(): string[] {
  const history = (fx.server.requests.at(-1)?.body?.messages ?? fx.server.requests.at(-1)?.body?.input) as Array<Record<string, unknown>>;
  return history.filter((entry) => entry.role === "tool" || entry.type === "function_call_output").map((entry) => String(entry.content ?? entry.output));
}

describe.each([
  ["Chat Completions", []],
  ["Responses", ["--provider", "responses"]],
])("an MCP tool with an array without items, on %s", (_api, provider: string[]) => {
  it.each([
    ["default mode", [], undefined],
    ["strict mode", ["--strict"], false],
  ])("%s: offered with items: {}, accepted, and its calls still checked against the server's schema", async (_mode, flags: string[], strict: boolean | undefined) => {
    const good = { configs: [1, "retention.ms=1000", { any: true }], values: [[null]], interaction: "ask" };
    fx.server.setScript([
      { toolCalls: [{ id: "a", name: "kafka__topics", arguments: JSON.stringify(good) }, { id: "b", name: "kafka__topics", arguments: '{"configs":"retention.ms=1000"}' }] },
      { content: "done" },
    ]);
    const record = path.join(tempDir(), "record.jsonl");
    const run = await cli([...provider, ...flags, "list the topics"], record);
    expect(fx.server.requests.flatMap((request) => request.violations)).toEqual([]);
    expect(run).toMatchObject({ code: 0, stdout: "done\n" });
    // The Responses API takes `strict: true` when it is left out, so sigloop always says it there.
    const said = strict ?? (provider.length > 0 ? false : undefined);
    expect(offeredTopics()).toEqual({ parameters: offered, ...(said !== undefined ? { strict: said } : {}) });
    if (strict === false) {
      expect(run.stderr).toContain('mcp: tool "kafka__topics" is offered with strict: false in strict mode: parameter "configs" is an array without items (no schema for its elements), which strict mode cannot express');
    }
    const [first, second] = toolResults();
    expect(JSON.parse(first!)).toEqual(good);
    expect(second).toBe(
      [
        "The arguments for kafka__topics do not match its parameters, so it was not run:",
        '- configs: expected array, got string "retention.ms=1000"',
        "Parameters: configs (any[], required); values (any[][], optional); interaction (string | any[], optional)",
        "Fix these and call kafka__topics again.",
      ].join("\n"),
    );
    expect(recorded(record).filter((entry) => entry.method === "tools/call")).toHaveLength(1);
  });
});
