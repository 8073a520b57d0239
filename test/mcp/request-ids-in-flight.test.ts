/**
 * A request id reused while the first request with it is still in flight is refused with -32600, answered
 * with that id, and the first still gets its own answer; once it is answered (or cancelled) the id may be
 * used again. Over stdio per connection, over HTTP per session (409), and per POST when stateless.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpFixtureSchemas, INITIALIZE, post, startHttpServer, type HttpServerRun } from "./http-support.js";
import { endRaw, startRawFixtureServer, until, type RawRun } from "./support.js";

const inUse = (id: string) =>
  `Invalid Request: the id ${id} is in use by a request not yet answered; give each request in flight its own id (this one is free again once that request is answered).`;
const call = (id: unknown, name: string, args: object) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
const text = (value: string) => ({ content: [{ type: "text", text: value }] });

describe("over stdio", () => {
  let run: RawRun;
  beforeAll(async () => void (run = await startRawFixtureServer()));
  afterAll(() => endRaw(run));
  const answersTo = (id: unknown) => run.messages.filter((message) => (message as { id?: unknown }).id === id);

  it("refuses a second request with an id in flight, answers the first, and takes the id again once answered", async () => {
    // gather(2) answers only once two calls of it run: the refused one must not have started.
    run.writeLine(call(7, "gather", { count: 2 }));
    run.writeLine(call(7, "gather", { count: 2 }));
    const refused = await run.next((message) => message.id === 7);
    expect(refused).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32600, message: inUse("7") } });
    run.writeLine(call(8, "gather", { count: 2 }));
    await until(() => answersTo(7).length === 2 && answersTo(8).length === 1);
    expect(answersTo(7)[1]).toEqual({ jsonrpc: "2.0", id: 7, result: text("arrived 1 of 2") });
    expect(answersTo(8)).toEqual([{ jsonrpc: "2.0", id: 8, result: text("arrived 2 of 2") }]);
    run.writeLine(call(7, "add", { a: 1, b: 2 }));
    await until(() => answersTo(7).length === 3);
    expect(answersTo(7)[2]).toEqual({ jsonrpc: "2.0", id: 7, result: text("3") });
  });

  it("tells a string id from a number (\"9\" and 9 are two ids) and quotes a string id in the refusal", async () => {
    run.writeLine(call("9", "gather", { count: 2 }));
    run.writeLine(call("9", "add", { a: 1, b: 1 }));
    expect(await run.next((message) => message.id === "9")).toEqual({ jsonrpc: "2.0", id: "9", error: { code: -32600, message: inUse('"9"') } });
    run.writeLine(call(9, "gather", { count: 2 }));
    await until(() => answersTo("9").length === 2 && answersTo(9).length === 1);
    expect([answersTo("9")[1], answersTo(9)[0]]).toEqual([
      { jsonrpc: "2.0", id: "9", result: text("arrived 1 of 2") },
      { jsonrpc: "2.0", id: 9, result: text("arrived 2 of 2") },
    ]);
  });

  it("frees the id of a cancelled request, which gets no answer", async () => {
    run.writeLine(call(10, "wait_for_abort", {}));
    await until(() => run.stderr().includes("wait_for_abort: started"));
    run.writeLine(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 10, reason: "test" } }));
    await until(() => run.stderr().includes("wait_for_abort: signal aborted"));
    run.writeLine(call(10, "add", { a: 2, b: 3 }));
    await until(() => answersTo(10).length === 1);
    expect(answersTo(10)).toEqual([{ jsonrpc: "2.0", id: 10, result: text("5") }]);
  });

  it("refuses a big integer id in flight by its digits, and tells it from the double it rounds to", async () => {
    const before = run.stdout().length;
    const written = () => run.stdout().slice(before);
    run.writeLine('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"gather","arguments":{"count":2}}}');
    run.writeLine('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}');
    await until(() => written().includes("9007199254740993"));
    run.writeLine('{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/call","params":{"name":"gather","arguments":{"count":2}}}');
    await until(() => written().split("\n").length === 4);
    const lines = written().split("\n").slice(0, 3);
    expect(lines[0]).toBe(`{"id":9007199254740993,"jsonrpc":"2.0","error":{"code":-32600,"message":${JSON.stringify(inUse("9007199254740993"))}}}`);
    expect(lines.slice(1).sort()).toEqual([
      '{"id":9007199254740992,"result":{"content":[{"type":"text","text":"arrived 2 of 2"}]},"jsonrpc":"2.0"}',
      '{"id":9007199254740993,"result":{"content":[{"type":"text","text":"arrived 1 of 2"}]},"jsonrpc":"2.0"}',
    ]);
  });
});

describe("over HTTP", () => {
  let server: HttpServerRun;
  let stateless: HttpServerRun;
  beforeAll(async () => {
    const schemas = httpFixtureSchemas();
    const args = ["--workspace", path.dirname(schemas), "--schemas", schemas];
    [server, stateless] = await Promise.all([startHttpServer([...args, "--http", "127.0.0.1:0"]), startHttpServer([...args, "--http", "127.0.0.1:0", "--stateless"])]);
  });
  afterAll(async () => {
    await Promise.all([server.stop(), stateless.stop()]);
  });

  async function session(): Promise<Record<string, string>> {
    const response = await post(server.url, INITIALIZE);
    const headers = { "mcp-session-id": response.headers.get("mcp-session-id") ?? "" };
    await post(server.url, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), headers);
    return headers;
  }
  const sseMessage = (body: string) => JSON.parse(/^data: (.*)$/m.exec(body)?.[1] ?? "null") as unknown;
  const started = (run: HttpServerRun) => run.stderr().split("pause: started").length - 1;

  it("answers a second POST with an id in flight in the session with 409 and -32600, the first with its result, then takes the id again", async () => {
    const headers = await session();
    const before = started(server);
    const first = post(server.url, call(7, "pause", { ms: 1500 }), headers);
    await until(() => started(server) > before);
    const second = await post(server.url, call(7, "add", { a: 1, b: 2 }), headers);
    expect([second.status, second.headers.get("content-type")]).toEqual([409, "application/json"]);
    expect(second.text).toBe(JSON.stringify({ jsonrpc: "2.0", error: { code: -32600, message: inUse("7") }, id: 7 }));
    const answered = await first;
    expect(answered.status).toBe(200);
    expect(sseMessage(answered.text)).toEqual({ jsonrpc: "2.0", id: 7, result: text("paused 1500 ms") });
    const again = await post(server.url, call(7, "add", { a: 1, b: 2 }), headers);
    expect(sseMessage(again.text)).toEqual({ jsonrpc: "2.0", id: 7, result: text("3") });
  });

  it("keeps ids per session: another session may use the same id at the same time", async () => {
    const [one, two] = await Promise.all([session(), session()]);
    const before = started(server);
    const first = post(server.url, call(7, "pause", { ms: 300 }), one);
    await until(() => started(server) > before);
    const other = await post(server.url, call(7, "add", { a: 2, b: 2 }), two);
    expect(sseMessage(other.text)).toEqual({ jsonrpc: "2.0", id: 7, result: text("4") });
    expect(sseMessage((await first).text)).toEqual({ jsonrpc: "2.0", id: 7, result: text("paused 300 ms") });
  });

  it("keeps ids per POST when stateless: two POSTs with one id at the same time are both answered", async () => {
    const before = started(stateless);
    const first = post(stateless.url, call(7, "pause", { ms: 300 }));
    await until(() => started(stateless) > before);
    const second = await post(stateless.url, call(7, "add", { a: 3, b: 4 }));
    expect(sseMessage(second.text)).toEqual({ jsonrpc: "2.0", id: 7, result: text("7") });
    expect(sseMessage((await first).text)).toEqual({ jsonrpc: "2.0", id: 7, result: text("paused 300 ms") });
  });

  it("frees the id of a request the SDK's transport refused before serving it", async () => {
    const headers = await session();
    const refused = await post(server.url, call(11, "add", { a: 1, b: 1 }), { ...headers, "mcp-protocol-version": "1999-01-01" });
    expect(refused.status).toBe(400);
    const served = await post(server.url, call(11, "add", { a: 1, b: 1 }), headers);
    expect(sseMessage(served.text)).toEqual({ jsonrpc: "2.0", id: 11, result: text("2") });
  });
});
