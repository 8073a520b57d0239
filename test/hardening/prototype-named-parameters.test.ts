/**
 * An optional parameter or member named like an `Object.prototype` member (`toString?`, `constructor?`)
 * can be left out, over MCP and in the agent: validation, repair and binding look at own properties
 * only. A hostile schema requiring `__proto__` finds it missing when it is.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, spawnCli } from "../cli/support.js";
import { initializeRaw, resultText, spawnRaw } from "../mcp/support.js";
import { toolFolder } from "./support.js";

const TOOLS = {
  "render.ts": [
    "/** Renders. @param value The value. @param toString A format. */",
    "export function render(value: number, toString?: string): string {",
    "  return `value ${value}, format ${typeof toString}`;",
    "}",
    "",
    "/** Configures. @param opts Options. */",
    "export function configure(opts: { model: string; constructor?: string; hasOwnProperty?: number }): string {",
    "  return `model ${opts.model}, constructor ${typeof opts.constructor === \"string\" ? opts.constructor : \"absent\"}`;",
    "}",
    "",
  ].join("\n"),
};

const server = await startScriptedServer({ script: [] });
afterAll(() => server.close());

describe("own properties only", () => {
  it("over MCP: toString? and constructor? may be left out, and are used when given", async () => {
    const folder = toolFolder(TOOLS, (schemas) => {
      const configure = schemas.tools.find((tool) => tool.function.name === "configure")!.function.parameters;
      Object.defineProperty(configure.properties, "__proto__", { value: { type: "string" }, enumerable: true, writable: true, configurable: true });
      configure.required = [...configure.required, "__proto__"];
    });
    const run = spawnRaw(["--workspace", folder.dir, "--schemas", folder.schemas]);
    await initializeRaw(run);
    const call = async (id: number, name: string, args: object) => resultText((await run.request(id, "tools/call", { name, arguments: args })).result as object);
    expect(await call(1, "render", { value: 5 })).toBe("value 5, format undefined");
    expect(await call(2, "render", { value: 5, toString: "hex" })).toBe("value 5, format string");
    const missing = await call(3, "configure", { opts: { model: "m" } });
    expect(missing.split("\n").filter((line) => line.startsWith("- "))).toEqual(["- __proto__: missing (required, string)"]);
    run.child.stdin.end();
    await run.exit;
  });

  it("in the agent: the model's call leaving toString out runs", async () => {
    const folder = toolFolder(TOOLS);
    server.setScript([
      { toolCalls: [{ id: "call_1", name: "render", arguments: '{"value": 5}' }, { id: "call_2", name: "configure", arguments: '{"opts": {"model": "m"}}' }] },
      { content: "rendered" },
    ]);
    const run = await spawnCli(["--schemas", folder.schemas, "--workspace", folder.dir, "--no-stream", "go"], cliEnv(server.baseURL), folder.dir).done;
    expect(run.code).toBe(0);
    const messages = (server.requests.at(-1)?.body?.messages ?? []) as { role: string; content: string }[];
    expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(["value 5, format undefined", "model m, constructor absent"]);
  });
});
