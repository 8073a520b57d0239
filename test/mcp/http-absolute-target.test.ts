/**
 * A request line with an absolute-form target (`POST http://127.0.0.1:PORT/mcp HTTP/1.1`, RFC 9112
 * §3.2.2, as some proxies send it) is served exactly as `POST /mcp`, written by hand on a raw socket; its
 * authority is held to the loopback server's Host rules (403 when it names another host), and a target
 * with another path is 404 as in origin form.
 */
import { connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpFixtureSchemas, INITIALIZE, startHttpServer, type HttpServerRun } from "./http-support.js";

let server: HttpServerRun;
let authority: string;

beforeAll(async () => {
  const schemas = httpFixtureSchemas();
  server = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "127.0.0.1:0"]);
  authority = new URL(server.url).host;
});
afterAll(async () => {
  expect((await server.stop()).code).toBe(143);
});

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Writes one request by hand and reads its answer: up to its length, or to the last chunk of a chunked body. */
function rawRequest(requestLine: string, headers: Record<string, string>, body = ""): Promise<RawAnswer> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    let received = "";
    socket.on("error", reject);
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      received += chunk;
      const answer = completeAnswer(received);
      if (answer === undefined) return;
      socket.destroy();
      resolve(answer);
    });
    const lines = [requestLine, ...Object.entries({ ...headers, "content-length": String(Buffer.byteLength(body)) }).map(([name, value]) => `${name}: ${value}`)];
    socket.write(`${lines.join("\r\n")}\r\n\r\n${body}`);
  });
}

function completeAnswer(received: string): RawAnswer | undefined {
  const headEnd = received.indexOf("\r\n\r\n");
  if (headEnd === -1) return undefined;
  const [statusLine = "", ...fields] = received.slice(0, headEnd).split("\r\n");
  const headers = new Map(fields.map((field) => [field.slice(0, field.indexOf(":")).toLowerCase(), field.slice(field.indexOf(":") + 1).trim()]));
  const raw = received.slice(headEnd + 4);
  const status = Number(statusLine.split(" ")[1]);
  if (headers.get("transfer-encoding") === "chunked") return raw.endsWith("0\r\n\r\n") ? { status, headers, body: unchunked(raw) } : undefined;
  const length = Number(headers.get("content-length") ?? 0);
  return Buffer.byteLength(raw) >= length ? { status, headers, body: raw } : undefined;
}

function unchunked(raw: string): string {
  let body = "";
  let rest = raw;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return body;
    body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const sseData = (answer: RawAnswer) => JSON.parse(/^data: (.*)$/m.exec(answer.body)?.[1] ?? "null") as unknown;

describe("an absolute-form request target", () => {
  it("is served as POST /mcp: initialize, then a tool call in the session it opened", async () => {
    const opened = await rawRequest(`POST http://${authority}/mcp HTTP/1.1`, { host: authority, ...MCP_HEADERS }, INITIALIZE);
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get("mcp-session-id") ?? "";
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sseData(opened)).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "sigloop" } } });
    const session = { host: authority, ...MCP_HEADERS, "mcp-session-id": sessionId };
    const initialized = await rawRequest(`POST http://${authority}/mcp HTTP/1.1`, session, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    expect(initialized.status).toBe(202);
    const called = await rawRequest(`POST HTTP://${authority.toUpperCase()}/mcp?via=proxy HTTP/1.1`, session, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 5 } } }));
    expect([called.status, sseData(called)]).toEqual([200, { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "7" }] } }]);
    const inOriginForm = await rawRequest("POST /mcp HTTP/1.1", session, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 5 } } }));
    expect([inOriginForm.status, sseData(inOriginForm)]).toEqual([200, { jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text: "7" }] } }]);
  });

  it("answers /healthz and another path as in origin form", async () => {
    const health = await rawRequest(`GET http://${authority}/healthz HTTP/1.1`, { host: authority });
    expect([health.status, health.body]).toEqual([200, "ok"]);
    const other = await rawRequest(`POST http://${authority}/other HTTP/1.1`, { host: authority, ...MCP_HEADERS }, INITIALIZE);
    expect([other.status, JSON.parse(other.body)]).toEqual([404, { jsonrpc: "2.0", error: { code: -32000, message: "Not Found: MCP is served on /mcp." }, id: null }]);
  });

  it("is refused (403) on a loopback bind when its authority, or the Host header, is another host", async () => {
    const hosts = `127.0.0.1:${new URL(server.url).port} or localhost:${new URL(server.url).port}`;
    const elsewhere = await rawRequest(`POST http://attacker.example:${new URL(server.url).port}/mcp HTTP/1.1`, { host: authority, ...MCP_HEADERS }, INITIALIZE);
    expect([elsewhere.status, JSON.parse(elsewhere.body)]).toEqual([
      403,
      { jsonrpc: "2.0", error: { code: -32000, message: `Forbidden: the request target names "attacker.example:${new URL(server.url).port}", not this server's address; a loopback server answers ${hosts} only.` }, id: null },
    ]);
    const badHost = await rawRequest(`POST http://${authority}/mcp HTTP/1.1`, { host: "attacker.example", ...MCP_HEADERS }, INITIALIZE);
    expect([badHost.status, JSON.parse(badHost.body)]).toEqual([
      403,
      { jsonrpc: "2.0", error: { code: -32000, message: `Forbidden: the Host "attacker.example" is not this server's address; a loopback server answers ${hosts} only.` }, id: null },
    ]);
  });
});
