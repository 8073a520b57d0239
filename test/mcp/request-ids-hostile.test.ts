/**
 * A hostile client's ids and request targets, on the raw wire of the real server: a fraction that
 * JSON.parse rounds to an integer (`1.0000000000000001`, `1e-400`) is refused with its literal, never
 * served or cancelled as that integer; a fraction of 200 000 digits is read in linear time; a response
 * whose id is kept as written is logged with that id, and the marker prefix never appears in anything
 * the server writes (stdout, stderr), whatever ids, keys and line endings a client sends; an absolute-form
 * target with a fragment is 404 as the origin form with one is.
 */
import fc from "fast-check";
import { connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpFixtureSchemas, INITIALIZE, post, startHttpServer, type HttpServerRun } from "./http-support.js";
import { endRaw, startRawFixtureServer, until, type RawRun } from "./support.js";

const NOT_AN_ID = `"Invalid Request: not a JSON-RPC 2.0 message (\\"id\\" must be a string or an integer (MCP allows no null id))."`;
const refusedLine = (id: string) => `{"id":${id},"jsonrpc":"2.0","error":{"code":-32600,"message":${NOT_AN_ID}}}`;
/** The lines of `text` holding a marker's prefix (the random part a client cannot guess, not a look-alike it sent). */
const markerLines = (text: string) => text.split("\n").filter((line) => /sigloop-id-[0-9a-f]{8}-/.test(line));
const gather = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"gather","arguments":{"count":2}}}`;

describe("over stdio", () => {
  let run: RawRun;
  beforeAll(async () => void (run = await startRawFixtureServer()));
  afterAll(async () => {
    await endRaw(run);
    expect(markerLines(`${run.stdout()}${run.stderr()}`)).toEqual([]);
  });
  const answer = (text: string) => run.answerRaw(text);

  it("refuses a fractional id that JSON.parse rounds to an integer, with the id as written", async () => {
    for (const id of ["1.0000000000000001", "1e-400", "-1e-400", "9007199254740993.0000000000000001"]) {
      expect(await answer(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`)).toBe(refusedLine(id));
    }
  });

  it("does not cancel request 1 for a cancellation of 1.0000000000000001", async () => {
    const before = run.stdout().length;
    // gather(2) answers only once two calls of it run: a cancelled first call would leave the second waiting.
    run.writeLine(gather("1"));
    run.writeLine('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.0000000000000001}}');
    run.writeLine(gather("2"));
    await until(() => run.stdout().slice(before).split("\n").length === 3);
    expect(run.stdout().slice(before).split("\n").slice(0, 2).sort()).toEqual([
      '{"result":{"content":[{"type":"text","text":"arrived 1 of 2"}]},"jsonrpc":"2.0","id":1}',
      '{"result":{"content":[{"type":"text","text":"arrived 2 of 2"}]},"jsonrpc":"2.0","id":2}',
    ]);
  });

  it("reads an id with a fraction of 200000 digits at once, answering it as written or refusing it", async () => {
    const zeros = "0".repeat(200_000);
    const started = performance.now();
    expect(await answer(`{"jsonrpc":"2.0","id":1.${zeros}1,"method":"ping"}\n`)).toBe(refusedLine(`1.${zeros}1`));
    expect(await answer(`{"jsonrpc":"2.0","id":1.${zeros},"method":"ping"}\n`)).toBe(`{"id":1.${zeros},"result":{},"jsonrpc":"2.0"}`);
    // Quadratic, the first took about 30 s on this machine.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("logs a response whose id is kept as written with that id, CRLF line or not, and answers nothing", async () => {
    const before = run.stdout().length;
    run.child.stdin.write('{"jsonrpc":"2.0","id":9007199254740993,"result":{}}\r\n{"jsonrpc":"2.0","\\u0069d":-0,"error":{"code":1,"message":"no"}}\n');
    expect(await answer('{"jsonrpc":"2.0","id":"after","method":"ping"}\r\n')).toBe('{"result":{},"jsonrpc":"2.0","id":"after"}');
    expect(run.stdout().slice(before).split("\n")).toHaveLength(2);
    expect(run.stderr().split("\n").filter((line) => line.includes("unknown message ID"))).toEqual([
      'mcp: Received a response for an unknown message ID: {"id":9007199254740993,"jsonrpc":"2.0","result":{}}',
      'mcp: Received a response for an unknown message ID: {"id":-0,"jsonrpc":"2.0","error":{"code":1,"message":"no"}}',
    ]);
  });

  it("never writes the marker prefix, whatever ids, keys and line ends a message has (property)", async () => {
    const literal = fc.oneof(
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
      fc.constantFrom("-0", "1.0", "1e2", "2.5", "1e-400", "1.0000000000000001", "0e5", '"sigloop-id-x:1"', '"7"'),
    );
    const key = fc.constantFrom('"id"', '"\\u0069d"', '"i\\u0064"');
    const shape = fc.constantFrom("request", "response", "cancellation", "nested");
    const end = fc.constantFrom("\n", "\r\n");
    let syncs = 0;
    await fc.assert(
      fc.asyncProperty(literal, key, shape, end, async (id, idKey, kind, lineEnd) => {
        const message = {
          request: `{"jsonrpc":"2.0",${idKey}:${id},"method":"ping"}`,
          response: `{"jsonrpc":"2.0",${idKey}:${id},"result":{}}`,
          cancellation: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id}}}`,
          nested: `{"jsonrpc":"2.0","method":"ping","params":{${idKey}:${id}},${idKey}:"nested"}`,
        }[kind];
        run.child.stdin.write(`${message}${lineEnd}`);
        // A ping after it: every line before its answer has been written by then.
        syncs += 1;
        run.writeLine(`{"jsonrpc":"2.0","id":"sync-${syncs}","method":"ping"}`);
        await until(() => run.stdout().includes(`"id":"sync-${syncs}"}`));
        expect(markerLines(`${run.stdout()}${run.stderr()}`)).toEqual([]);
      }),
      { numRuns: 80 },
    );
  });
});

describe("over HTTP", () => {
  let server: HttpServerRun;
  let session: Record<string, string>;
  beforeAll(async () => {
    const schemas = httpFixtureSchemas();
    server = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "127.0.0.1:0"]);
    session = { "mcp-session-id": (await post(server.url, INITIALIZE)).headers.get("mcp-session-id") ?? "" };
    await post(server.url, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), session);
  });
  afterAll(async () => {
    await server.stop();
    expect(markerLines(server.stderr())).toEqual([]);
  });

  it("refuses a fractional id that JSON.parse rounds to an integer with 400 and the id as written", async () => {
    for (const id of ["1.0000000000000001", "1e-400"]) {
      const refused = await post(server.url, `{"jsonrpc":"2.0","id":${id},"method":"ping"}`, session);
      expect([refused.status, refused.text]).toEqual([400, `{"jsonrpc":"2.0","error":{"code":-32600,"message":${NOT_AN_ID}},"id":${id}}`]);
    }
  });

  /** The status line and body of one request written by hand, answered with Connection: close. */
  function rawRequest(requestLine: string): Promise<string> {
    const { host, port } = new URL(server.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1");
      let received = "";
      socket.on("error", reject);
      socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk));
      socket.on("close", () => resolve(`${received.slice(0, received.indexOf("\r\n"))}\n${received.slice(received.indexOf("\r\n\r\n") + 4)}`));
      const body = '{"jsonrpc":"2.0","id":5,"method":"ping"}';
      const headers = [`host: ${host}`, "content-type: application/json", "accept: application/json, text/event-stream", "connection: close", `mcp-session-id: ${session["mcp-session-id"]}`, `content-length: ${body.length}`];
      socket.write(`${requestLine}\r\n${headers.join("\r\n")}\r\n\r\n${body}`);
    });
  }

  it("answers an absolute-form target with a fragment 404, as the origin form with one", async () => {
    const notFound = 'HTTP/1.1 404 Not Found\n{"jsonrpc":"2.0","error":{"code":-32000,"message":"Not Found: MCP is served on /mcp."},"id":null}';
    expect(await rawRequest("POST /mcp#top HTTP/1.1")).toBe(notFound);
    expect(await rawRequest(`POST http://${new URL(server.url).host}/mcp#top HTTP/1.1`)).toBe(notFound);
  });
});
