/**
 * Every id is answered digit for digit as the client wrote it, where JSON.parse would round or rewrite
 * it: integers beyond 2^53 (also negative, up to 40 digits), -0, `1.0`, `1e2`, and the refused fractional
 * ids; over stdio, over HTTP (SSE answers and the server's own error answers, the 404 for an unknown
 * session among them), checked on the raw text of each answer.
 */
import fc from "fast-check";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpFixtureSchemas, INITIALIZE, post, startHttpServer, type HttpServerRun } from "./http-support.js";
import { endRaw, startRawFixtureServer, type RawRun } from "./support.js";

/** Integer literals as JSON writes them: an optional minus, no leading zero, 1 to 40 digits. */
const integerText = fc
  .tuple(fc.boolean(), fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 39 }))
  .map(([negative, first, rest]) => `${negative ? "-" : ""}${first}${rest.join("")}`);
/** The raw text of the top-level id of one answer (its result and error hold no `"id"` member). */
const rawId = (answer: string) => /"id":(-?[0-9][-+.0-9eE]*|"[^"]*")[,}]/.exec(answer)?.[1];

describe("over stdio", () => {
  let run: RawRun;
  beforeAll(async () => void (run = await startRawFixtureServer()));
  afterAll(() => endRaw(run));

  /** Writes `line` and resolves with the next raw line the server answers. */
  const answer = (line: string) => run.answerRaw(`${line}\n`);

  it("answers an integer id beyond 2^53 as sent, on a ping and a tool call", async () => {
    expect(await answer('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}')).toBe('{"id":9007199254740993,"result":{},"jsonrpc":"2.0"}');
    expect(await answer('{"jsonrpc":"2.0","id":-123456789012345678901234567890,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}')).toBe(
      '{"id":-123456789012345678901234567890,"result":{"content":[{"type":"text","text":"3"}]},"jsonrpc":"2.0"}',
    );
  });

  it("answers 1.0 and 1e2 as written, and refuses a fractional id with the id as written", async () => {
    expect(await answer('{"jsonrpc":"2.0","id":1.0,"method":"ping"}')).toBe('{"id":1.0,"result":{},"jsonrpc":"2.0"}');
    expect(await answer('{"jsonrpc":"2.0","id":1E2,"method":"ping"}')).toBe('{"id":1E2,"result":{},"jsonrpc":"2.0"}');
    expect(await answer('{"jsonrpc":"2.0","id":2.50,"method":"ping"}')).toBe(
      `{"id":2.50,"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: not a JSON-RPC 2.0 message (\\"id\\" must be a string or an integer (MCP allows no null id))."}}`,
    );
  });

  it("finds the id however the message is written: spaces, an escaped key, the id last, a later duplicate", async () => {
    expect(await answer('{ "jsonrpc" : "2.0" , "method" : "ping" , "params" : { "id" : 1 , "s" : "\\"id\\":5" } , "id" : 12345678901234567890 }')).toBe(
      '{"id":12345678901234567890,"result":{},"jsonrpc":"2.0"}',
    );
    expect(await answer('{"jsonrpc":"2.0","\\u0069d":98765432109876543210,"method":"ping"}')).toBe('{"id":98765432109876543210,"result":{},"jsonrpc":"2.0"}');
    expect(await answer('{"jsonrpc":"2.0","id":1,"method":"ping","id":11111111111111111111}')).toBe('{"id":11111111111111111111,"result":{},"jsonrpc":"2.0"}');
  });

  it("answers any integer id of up to 40 digits with its digits as sent (property)", async () => {
    await fc.assert(
      fc.asyncProperty(integerText, async (id) => {
        expect(rawId(await answer(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`))).toBe(id);
      }),
      { numRuns: 60 },
    );
  });
});

describe("over HTTP", () => {
  let server: HttpServerRun;
  let stateless: HttpServerRun;
  let session: Record<string, string>;
  beforeAll(async () => {
    const schemas = httpFixtureSchemas();
    const args = ["--workspace", path.dirname(schemas), "--schemas", schemas];
    [server, stateless] = await Promise.all([startHttpServer([...args, "--http", "127.0.0.1:0"]), startHttpServer([...args, "--http", "127.0.0.1:0", "--stateless"])]);
    session = { "mcp-session-id": (await post(server.url, INITIALIZE)).headers.get("mcp-session-id") ?? "" };
    await post(server.url, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), session);
  });
  afterAll(async () => {
    await Promise.all([server.stop(), stateless.stop()]);
  });
  const data = (body: string) => /^data: (.*)$/m.exec(body)?.[1];

  it("answers a big integer id as sent on the session's stream, and when stateless", async () => {
    const called = await post(server.url, '{"jsonrpc":"2.0","id":-9007199254740993,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":2}}}', session);
    expect([called.status, called.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    expect(data(called.text)).toBe('{"result":{"content":[{"type":"text","text":"4"}]},"jsonrpc":"2.0","id":-9007199254740993}');
    const pinged = await post(stateless.url, '{"jsonrpc":"2.0","id":1234567890123456789012345,"method":"ping"}');
    expect(data(pinged.text)).toBe('{"result":{},"jsonrpc":"2.0","id":1234567890123456789012345}');
  });

  it("carries the request's id, as written, in the 404 for an unknown session", async () => {
    const unknown = { "mcp-session-id": "00000000-0000-4000-8000-000000000000" };
    const message = "Session not found: it ended or never existed; send initialize again for a new session.";
    const big = await post(server.url, '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}', unknown);
    expect([big.status, big.text]).toEqual([404, `{"jsonrpc":"2.0","error":{"code":-32001,"message":"${message}"},"id":9007199254740993}`]);
    const plain = await post(server.url, JSON.stringify({ jsonrpc: "2.0", id: "list-1", method: "tools/list" }), unknown);
    expect([plain.status, plain.json]).toEqual([404, { jsonrpc: "2.0", error: { code: -32001, message }, id: "list-1" }]);
    const notification = await post(server.url, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), unknown);
    expect([notification.status, notification.json]).toEqual([404, { jsonrpc: "2.0", error: { code: -32001, message }, id: null }]);
  });

  it("refuses a non-JSON-RPC body with its id as written (400)", async () => {
    const refused = await post(server.url, '{"id":1.50,"method":"ping"}', session);
    expect([refused.status, refused.text]).toEqual([400, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: not a JSON-RPC 2.0 message (\\"jsonrpc\\" must be \\"2.0\\")."},"id":1.50}`]);
  });

  it("answers any integer id of up to 40 digits with its digits as sent (property)", async () => {
    await fc.assert(
      fc.asyncProperty(integerText, async (id) => {
        const answer = await post(server.url, `{"jsonrpc":"2.0","id":${id},"method":"ping"}`, session);
        expect(rawId(data(answer.text) ?? "")).toBe(id);
      }),
      { numRuns: 40 },
    );
  });
});
