/**
 * Smaller holes of the real MCP server: requests before `initialize` get a JSON-RPC error (ping is still
 * answered), an `id` of -0 comes back as -0, a `toJSON` that works only once is serialised once (an
 * `isError`-free result, not -32603), and a returned `Map` or `Set` reaches the client as its contents.
 */
import { describe, expect, it } from "vitest";
import { initializeRaw, resultText } from "../mcp/support.js";
import { serversKilledAfterEach, toolFolder } from "./support.js";

const TOOLS = {
  "odd.ts": [
    "/** Returns an object whose toJSON works once. */",
    "export function once(): { value: number } {",
    "  let used = false;",
    "  return { value: 1, toJSON() { if (used) throw new Error(\"toJSON called twice\"); used = true; return { value: 1 }; } } as { value: number };",
    "}",
    "",
    "/** Returns collections. */",
    "export function collections(): unknown {",
    '  return { tags: new Set(["a", "b"]), counts: new Map([["x", 1]]), pairs: new Map([[1, "one"]]) };',
    "}",
    "",
  ].join("\n"),
};

const spawnServer = serversKilledAfterEach();

describe("the MCP server's smaller holes", () => {
  it("answers requests before initialize with an error, ping with a result", async () => {
    const folder = toolFolder(TOOLS);
    const run = spawnServer(["--workspace", folder.dir, "--schemas", folder.schemas]);
    expect((await run.request(1, "tools/list")).error).toEqual({ code: -32600, message: "Invalid Request: tools/list before initialize; send initialize first, as MCP's lifecycle says." });
    expect((await run.request(2, "tools/call", { name: "once", arguments: {} })).error).toMatchObject({ code: -32600 });
    expect((await run.request(3, "ping")).result).toEqual({});
    await initializeRaw(run);
    expect((await run.request(4, "tools/list")).result).toBeDefined();
  });

  it("echoes an id of -0 as -0", async () => {
    const folder = toolFolder(TOOLS);
    const run = spawnServer(["--workspace", folder.dir, "--schemas", folder.schemas]);
    const raw: string[] = [];
    run.child.stdout.on("data", (chunk: Buffer) => raw.push(chunk.toString("utf8")));
    await initializeRaw(run);
    run.writeLine('{"jsonrpc":"2.0","id":-0,"method":"ping"}');
    await run.next((message) => Object.is(message.id, -0) || message.id === 0);
    const answer = raw.join("").split("\n").find((line) => line.startsWith('{"id":-0,'));
    expect(JSON.parse(answer ?? "null")).toEqual({ id: -0, jsonrpc: "2.0", result: {} });
  });

  it("serialises a toJSON once, and sends a Map or Set as its contents", async () => {
    const folder = toolFolder(TOOLS);
    const run = spawnServer(["--workspace", folder.dir, "--schemas", folder.schemas]);
    await initializeRaw(run);
    const once = await run.request(1, "tools/call", { name: "once", arguments: {} });
    expect(once.error).toBeUndefined();
    expect(once.result).toMatchObject({ structuredContent: { value: 1 } });
    expect((once.result as { isError?: boolean }).isError).toBeUndefined();
    const collections = await run.request(2, "tools/call", { name: "collections", arguments: {} });
    expect(JSON.parse(resultText(collections.result as object))).toEqual({ tags: ["a", "b"], counts: { x: 1 }, pairs: [[1, "one"]] });
  });
});
