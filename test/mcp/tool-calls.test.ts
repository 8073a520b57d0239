/**
 * What an MCP client receives from tools/list and tools/call: one server process (the fixture tools) is
 * shared by every test here, since none of them changes it; a second one serves the project's own tools.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { SchemasFile } from "../../src/shared/schemas-file.js";
import { createToolExecutor } from "../../src/runtime/execution/tool-executor.js";
import { toJsonSchema2020 } from "../../src/mcp/json-schema-2020.js";
import { fixtureSchemas, projectRoot, startClient, tempDir, type McpClientRun, resultText, until } from "./support.js";

let server: McpClientRun;
let schemasPath: string;
let schemas: SchemasFile;
const workspace = tempDir();

beforeAll(async () => {
  schemasPath = fixtureSchemas();
  schemas = JSON.parse(readFileSync(schemasPath, "utf8")) as SchemasFile;
  server = await startClient(["--schemas", schemasPath, "--workspace", workspace, "--tool-timeout", "1500"]);
});
afterAll(() => server.close());

/** What the agent loop's model would read for the same call. */
async function loopSays(name: string, args: unknown, file = schemasPath, root = workspace): Promise<string> {
  const executor = createToolExecutor({ schemas: JSON.parse(readFileSync(file, "utf8")) as SchemasFile, schemasDir: path.dirname(file), timeoutMs: 1500 });
  const outcome = await executor.execute({ id: "1", type: "function", function: { name, arguments: JSON.stringify(args) } }, { workspace: root, signal: new AbortController().signal });
  return outcome.content;
}



describe("tools/list", () => {
  it("serves each tool's generated parameters as its inputSchema, its outputs entry as outputSchema (both in JSON Schema 2020-12), and its annotations", async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(schemas.tools.map((tool) => tool.function.name));
    for (const tool of tools) {
      const generated = schemas.tools.find((entry) => entry.function.name === tool.name)!.function;
      expect(tool.description).toBe(generated.description);
      expect(tool.inputSchema).toStrictEqual(toJsonSchema2020(generated.parameters));
      if (schemas.outputs?.[tool.name] === undefined) expect(tool.outputSchema).toBeUndefined();
      else expect(tool.outputSchema).toStrictEqual(toJsonSchema2020(schemas.outputs[tool.name]!));
    }
    expect(tools.find((tool) => tool.name === "weather")!.outputSchema).toStrictEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { temp: { type: "number" }, unit: { type: "string", enum: ["C", "F"] }, note: { type: "string" } },
      additionalProperties: false,
      required: ["temp", "unit"],
    });
    expect(tools.find((tool) => tool.name === "add")!.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
    expect(tools.find((tool) => tool.name === "explode")!.annotations).toBeUndefined();
  });
});

describe("tools/call", () => {
  it("repairs what the loop repairs and says so before the result", async () => {
    const result = await server.client.callTool({ name: "add", arguments: { a: "2", b: 3, verbose: true } });
    expect(result.isError).toBeUndefined();
    expect(resultText(result)).toBe('[ignored unknown arguments: verbose]\n[converted arguments: a from string "2" to 2]\n5');
  });

  it("answers invalid arguments with isError and the loop's exact message", async () => {
    const result = await server.client.callTool({ name: "add", arguments: { a: "z" } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(await loopSays("add", { a: "z" }));
    expect(resultText(result)).toBe(
      'The arguments for add do not match its parameters, so it was not run:\n- b: missing (required, number)\n- a: expected number, got string "z"\nParameters: a (number, required); b (number, required)\nFix these and call add again.',
    );
  });

  it("answers arguments that are not an object as the loop does, not with a protocol error", async () => {
    const result = await server.client.callTool({ name: "add", arguments: [1, 2] as unknown as Record<string, unknown> });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(await loopSays("add", [1, 2]));
    expect(resultText(result)).toContain("must be a JSON object with the parameters as keys, but came as an array of 2 items");
  });

  it("answers a tool that throws with isError and the loop's exact message", async () => {
    const result = await server.client.callTool({ name: "explode", arguments: {} });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(await loopSays("explode", {}));
    expect(resultText(result)).toContain("The tool explode itself failed: TypeError: cannot read the disk");
  });

  it("answers an unknown tool with a JSON-RPC error naming the available tools", async () => {
    const error = await server.client.callTool({ name: "delete_everything", arguments: {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toBe(`MCP error -32602: ${await loopSays("delete_everything", {})}`);
    expect((error as McpError).message).toContain("Available tools: add, explode, gather, shout, stubborn, wait_for_abort, weather.");
  });

  it("sends what a tool prints to stdout to stderr, and the stream stays intact", async () => {
    const result = await server.client.callTool({ name: "shout", arguments: { text: "hello" } });
    expect(resultText(result)).toBe("shouted hello");
    await until(() => server.stderr().includes("stdout.write: hello"));
    expect(server.stderr()).toContain("console.log: hello\n");
    expect(resultText(await server.client.callTool({ name: "add", arguments: { a: 1, b: 1 } }))).toBe("2");
  });

  it("runs sixteen calls at once, the default --max-concurrent-calls (each returns only when all sixteen are running)", async () => {
    const results = await Promise.all(Array.from({ length: 16 }, () => server.client.callTool({ name: "gather", arguments: { count: 16 } })));
    expect(results.every((result) => result.isError === undefined)).toBe(true);
    expect(results.map(resultText).sort()).toEqual(Array.from({ length: 16 }, (_, index) => `arrived ${index + 1} of 16`).sort());
  });

  it("aborts the tool's signal when the client cancels the call", async () => {
    const controller = new AbortController();
    const before = server.stderr().split("wait_for_abort: signal aborted").length;
    const call = server.client.callTool({ name: "wait_for_abort", arguments: {} }, undefined, { signal: controller.signal });
    await until(() => server.stderr().includes("wait_for_abort: started"));
    controller.abort("the user moved on");
    await expect(call).rejects.toThrow();
    await until(() => server.stderr().split("wait_for_abort: signal aborted").length > before);
    expect(resultText(await server.client.callTool({ name: "add", arguments: { a: 2, b: 2 } }))).toBe("4");
  });

  it("answers a tool that never settles and ignores its signal with the timeout, and goes on serving", async () => {
    const result = await server.client.callTool({ name: "stubborn", arguments: {} });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe("The tool stubborn timed out: it did not finish within 1500 ms, so it was stopped and has no result. Try a smaller task or another approach.");
    expect((await server.client.listTools()).tools).toHaveLength(7);
  });
});

describe("structured results", () => {
  it("sends a returned object as structuredContent and as the same JSON in text", async () => {
    const result = await server.client.callTool({ name: "weather", arguments: { city: "Oslo" } });
    expect(result.structuredContent).toEqual({ temp: 4, unit: "C" });
    expect(result.content).toEqual([{ type: "text", text: '{"temp":4,"unit":"C"}' }]);
  });

  it("refuses an object that does not match the declared return type, saying how", async () => {
    const result = await server.client.callTool({ name: "weather", arguments: { city: "Liar" } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(resultText(result)).toBe(
      'The tool weather returned an object that does not match its declared return type, so nothing was sent:\n- temp: expected number, got string "warm"\nThis is a bug in the tool, not an argument problem.',
    );
  });

  it("never cuts JSON: an object over the result cap is a tool error naming its size", async () => {
    const result = await server.client.callTool({ name: "weather", arguments: { city: "Huge" } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe("The tool weather returned a JSON object of 60031 characters, over the limit of 50000; JSON is never cut, so nothing was sent. Ask for less at a time.");
  });
});

describe("arbitrary arguments", () => {
  it("never crash the server: a known tool always answers with a result (an error result says what the loop would), an unknown one with a JSON-RPC error", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("add", "weather", "explode", "no_such_tool"), fc.jsonValue(), async (name, args) => {
        const outcome = await server.client.callTool({ name, arguments: args as Record<string, unknown> }).then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        );
        if (name === "no_such_tool") {
          expect(outcome).toEqual({ error: expect.any(McpError) });
          const error = (outcome as { error: McpError }).error;
          expect([error.code, error.message]).toEqual([-32602, `MCP error -32602: ${await loopSays(name, args)}`]);
          return;
        }
        expect(outcome).toEqual({ result: expect.objectContaining({ content: expect.any(Array) }) });
        const { result } = outcome as { result: { isError?: boolean } };
        if (result.isError === true) expect(resultText(result)).toBe(await loopSays(name, args));
      }),
      { numRuns: 60 },
    );
    expect(resultText(await server.client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("3");
  });
});

describe("the workspace boundary", () => {
  let real: McpClientRun;
  const root = tempDir();
  beforeAll(async () => {
    mkdirSync(path.join(root, "ws"));
    writeFileSync(path.join(root, "ws", "notes.txt"), "inside\n");
    writeFileSync(path.join(root, "secret.txt"), "TOP SECRET\n");
    real = await startClient(["--workspace", path.join(root, "ws")]);
  });
  afterAll(() => real.close());

  it("serves the project's tools with their annotations, and refuses paths outside the workspace as the loop does: an isError argument problem", async () => {
    const { tools } = await real.client.listTools();
    expect(tools.map((tool) => [tool.name, tool.annotations])).toEqual([
      ["edit_file", { destructiveHint: true, openWorldHint: false }],
      ["get_time", { readOnlyHint: true, openWorldHint: false }],
      ["list_files", { readOnlyHint: true, idempotentHint: true, openWorldHint: false }],
      ["read_file", { readOnlyHint: true, idempotentHint: true, openWorldHint: false }],
      ["write_file", { destructiveHint: true, openWorldHint: false }],
    ]);
    expect(resultText(await real.client.callTool({ name: "read_file", arguments: { path: "notes.txt" } }))).toBe("inside\n");
    // The server never asks for approval: its client decided, reading destructiveHint.
    expect(resultText(await real.client.callTool({ name: "write_file", arguments: { path: "made.txt", content: "by mcp\n" } }))).toBe('created "made.txt": 7 bytes, 1 line.');
    expect(readFileSync(path.join(root, "ws", "made.txt"), "utf8")).toBe("by mcp\n");
    for (const outside of ["../secret.txt", path.join(root, "secret.txt")]) {
      const result = await real.client.callTool({ name: "read_file", arguments: { path: outside } });
      expect(resultText(result)).toBe(await loopSays("read_file", { path: outside }, path.join(projectRoot, "generated/schemas.json"), path.join(root, "ws")));
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(/^The tool read_file rejected its arguments, so it has no result:\n- path: The path .* is outside the workspace /);
      expect(resultText(result)).toMatch(/\nFix this and call read_file again\.$/);
      expect(resultText(result)).not.toContain("TOP SECRET");
    }
  });
});
