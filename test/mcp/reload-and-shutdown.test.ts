/**
 * The server's life: it picks up a regenerated schemas file (and the changed tool modules) and tells
 * the client, keeps its tools when the new file is unusable, and ends cleanly on stdin close or a
 * signal after aborting the calls in flight.
 */
import { appendFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { generatedSchemasText } from "../cli/support.js";
import { runMcpCli, type StopSignal } from "../../src/mcp/run-mcp-cli.js";
import { fixtureCopy, fixtureSchemas, initializeRaw, projectRoot, spawnRaw, startClient, tempDir, resultText, until, type McpClientRun } from "./support.js";

/** Writes a file as an atomic writer does: whole, under another name, then renamed over the old one. */
function writeAtomically(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

/** Runs `change`, then waits until the server's stderr gains a line holding `text`; resolves with what it gained. */
async function afterChange(run: McpClientRun, change: () => void, text: string): Promise<string> {
  const from = run.stderr().length;
  change();
  await until(() => run.stderr().slice(from).includes(text));
  return run.stderr().slice(from);
}

/** Adds `subtract` to the fixture's arithmetic tools and makes `add` return 100 more. */
function editArithmetic(toolFile: string): void {
  const source = readFileSync(toolFile, "utf8").replace("return a + b;", "return a + b + 100;");
  writeFileSync(toolFile, `${source}\n/** Subtract b from a. @param a A number. @param b Another. */\nexport function subtract(a: number, b: number): number {\n  return a - b;\n}\n`);
}

describe("reload", () => {
  it("serves a regenerated schemas file with its changed tool modules, sends tools/list_changed, and keeps the tools when the file is stale or invalid", async () => {
    const copy = fixtureCopy();
    const run = await startClient(["--schemas", copy.schemas, "--workspace", copy.dir]);
    try {
      let changes = 0;
      run.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));
      expect(resultText(await run.client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("3");

      const toolFile = path.join(copy.toolsDir, "arithmetic.ts");
      editArithmetic(toolFile);
      const generated = generatedSchemasText(copy.toolsDir, copy.schemas);
      await afterChange(run, () => writeAtomically(copy.schemas, generated), `mcp: reloaded 4 tools from ${copy.schemas}\n`);
      await until(() => changes === 1);
      expect((await run.client.listTools()).tools.map((tool) => tool.name)).toEqual(["add", "explode", "subtract", "weather"]);
      expect(resultText(await run.client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("103");

      const invalid = await afterChange(run, () => writeAtomically(copy.schemas, "\u001b[2J{ not json"), "still serving the previous 4 tools\n");
      expect(invalid).toContain(`mcp: ${copy.schemas} changed but cannot be served (${copy.schemas} is not valid JSON (`);
      // The parser quotes the file; its escape sequence reaches the terminal escaped.
      expect(invalid).toContain(`Unexpected token '\\x1b', "\\x1b[2J{ not json" is not valid JSON`);
      expect(invalid).not.toContain("\u001b");

      const stale = await afterChange(run, () => {
        appendFileSync(toolFile, "\n// edited after gen\n");
        writeAtomically(copy.schemas, generated);
      }, "still serving the previous 4 tools\n");
      expect(stale).toBe(
        `mcp: ${copy.schemas} changed but cannot be served (${copy.schemas} is out of date: the tool sources changed since it was generated. Run npm run gen -- --tools ${copy.toolsDir} --out ${copy.schemas} to regenerate it.); still serving the previous 4 tools\n`,
      );
      expect((await run.client.listTools()).tools).toHaveLength(4);
      expect(changes).toBe(1);
    } finally {
      await run.close();
    }
  });

  it("keeps the old tools while the schemas file is half written in place, and serves the new ones once it is whole", async () => {
    const copy = fixtureCopy();
    const run = await startClient(["--schemas", copy.schemas, "--workspace", copy.dir]);
    try {
      let changes = 0;
      run.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));
      // Imported now, before the edit: a tool module is imported on its first call.
      expect(resultText(await run.client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("3");
      editArithmetic(path.join(copy.toolsDir, "arithmetic.ts"));
      const generated = generatedSchemasText(copy.toolsDir, copy.schemas);
      const half = Math.floor(generated.length / 2);

      const partial = await afterChange(run, () => writeFileSync(copy.schemas, generated.slice(0, half)), "still serving the previous 3 tools\n");
      expect(partial.split("\n")[0]).toMatch(/^mcp: .* changed but cannot be served \(.* is not valid JSON \(.*\): run npm run gen -- --out \S+ to write it again\.\); still serving the previous 3 tools$/);
      expect((await run.client.listTools()).tools.map((tool) => tool.name)).toEqual(["add", "explode", "weather"]);
      expect(resultText(await run.client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("3");
      expect(changes).toBe(0);

      await afterChange(run, () => appendFileSync(copy.schemas, generated.slice(half)), `mcp: reloaded 4 tools from ${copy.schemas}\n`);
      await until(() => changes === 1);
      expect((await run.client.listTools()).tools.map((tool) => tool.name)).toEqual(["add", "explode", "subtract", "weather"]);
      expect(resultText(await run.client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("103");
    } finally {
      await run.close();
    }
  });
});

describe("shutdown", () => {
  it("ends with exit 0 when stdin closes, after aborting the call in flight (a real process)", async () => {
    const run = spawnRaw(["--schemas", fixtureSchemas(), "--workspace", tempDir()]);
    await initializeRaw(run);
    run.writeLine(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "wait_for_abort", arguments: {} } }));
    await until(() => run.stderr().includes("wait_for_abort: started"));
    run.child.stdin.end();
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(run.stderr()).toContain("wait_for_abort: signal aborted");
  });

  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    it(`on ${signal} answers the call in flight as interrupted, then ends with exit ${code}`, async () => {
      const stdin = new PassThrough();
      const stdout = new PassThrough();
      const lines: Record<string, unknown>[] = [];
      let buffered = "";
      stdout.setEncoding("utf8").on("data", (chunk: string) => {
        buffered += chunk;
        const parts = buffered.split("\n");
        buffered = parts.pop() ?? "";
        lines.push(...parts.map((line) => JSON.parse(line) as Record<string, unknown>));
      });
      const toolLog = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      let stop: (signal: StopSignal) => void = () => undefined;
      const ended = runMcpCli({
        argv: ["--schemas", fixtureSchemas(), "--workspace", tempDir()],
        cwd: projectRoot,
        projectRoot,
        stdin,
        stdout,
        stderr: { write: () => true },
        onStopSignal: (handler) => ((stop = handler), () => undefined),
      });
      const send = (message: object) => stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
      send({ id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
      send({ method: "notifications/initialized" });
      send({ id: 1, method: "tools/call", params: { name: "wait_for_abort", arguments: {} } });
      await until(() => toolLog.mock.calls.some(([text]) => String(text).includes("wait_for_abort: started")));
      stop(signal);
      expect(await ended).toBe(code);
      toolLog.mockRestore();
      expect(lines.find((line) => line.id === 1)).toEqual({
        jsonrpc: "2.0",
        id: 1,
        result: { content: [{ type: "text", text: "The tool wait_for_abort was interrupted before it finished; it has no result." }], isError: true },
      });
    });
  }
});
