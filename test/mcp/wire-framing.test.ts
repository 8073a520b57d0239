/**
 * Bad input on the wire, written raw to the server's stdin: every bad line is answered, never fatal and
 * never silent, and the next message is served. stdout holds protocol messages only (each line parses).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LINE_BYTES } from "../../src/mcp/line-framing.js";
import { endRaw, startRawFixtureServer, type RawRun } from "./support.js";

let run: RawRun;
beforeAll(async () => void (run = await startRawFixtureServer()));
afterAll(() => endRaw(run));

const errorOf = (message: Record<string, unknown>) => message.error as { code: number; message: string };

describe("defensive framing", () => {
  it("answers a line that is not JSON with a parse error (id null), then serves the next message", async () => {
    run.writeLine('{"jsonrpc": "2.0", "id": 1, "method": "tools/list"');
    const answer = await run.next((message) => message.id === null && errorOf(message)?.code === -32700);
    expect(errorOf(answer).message).toMatch(/^Parse error: the line is not JSON \(.+\); send one JSON-RPC message per line\.$/);
    const listed = await run.request(2, "tools/list");
    expect((listed.result as { tools: unknown[] }).tools).toHaveLength(7);
  });

  it("answers JSON that is not JSON-RPC with an invalid-request error carrying its id when it has one", async () => {
    run.writeLine(JSON.stringify({ id: 7, method: "tools/list" }));
    const withId = await run.next((message) => message.id === 7);
    expect(errorOf(withId).code).toBe(-32600);
    expect(errorOf(withId).message).toBe(`Invalid Request: not a JSON-RPC 2.0 message ("jsonrpc" must be "2.0").`);
    run.writeLine("[1, 2, 3]");
    const withoutId = await run.next((message) => message.id === null && errorOf(message)?.code === -32600);
    expect(errorOf(withoutId).message).toMatch(/^Invalid Request: not a JSON-RPC 2\.0 message/);
    expect(((await run.request(8, "tools/list")).result as { tools: unknown[] }).tools).toHaveLength(7);
  });

  it(`drops a line over ${MAX_LINE_BYTES} bytes with an error, unread, and serves the next message`, async () => {
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 2, pad: "x".repeat(MAX_LINE_BYTES) } } });
    run.writeLine(huge);
    const dropped = await run.next((message) => message.id === null && errorOf(message)?.message.includes("longer than"));
    expect(errorOf(dropped)).toEqual({
      code: -32600,
      message: `Invalid Request: a message longer than ${MAX_LINE_BYTES} bytes was dropped unread; send messages of at most ${MAX_LINE_BYTES} bytes, one per line.`,
    });
    const answer = await run.request(10, "tools/call", { name: "add", arguments: { a: 1, b: 2 } });
    expect(answer.result).toEqual({ content: [{ type: "text", text: "3" }] });
    expect(run.messages.some((message) => (message as { id?: unknown }).id === 9)).toBe(false);
  });

  it("answers an unknown method with method-not-found and ignores blank lines", async () => {
    run.writeLine("");
    run.writeLine("   ");
    const answer = await run.request(11, "tools/destroy");
    expect(errorOf(answer)).toEqual({ code: -32601, message: "Method not found: tools/destroy" });
  });
});
