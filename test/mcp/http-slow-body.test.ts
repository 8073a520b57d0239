/**
 * A client that sends its headers and then trickles its body, one byte a second, against the real
 * `--http` process: it is answered 408 with a JSON-RPC error once `BODY_TIMEOUT_MS` have passed since its
 * headers, its connection is closed, and meanwhile the server serves others.
 */
import { connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_TIMEOUT_MS } from "../../src/mcp/http/read-body.js";
import { connectClient, httpFixtureSchemas, logLines, startHttpServer, type HttpServerRun } from "./http-support.js";
import { resultText } from "./support.js";

const TOKEN = "slow-body-token-6c1e9a4f2b7d";

interface Trickled {
  answer: string;
  /** From the headers' write to the server's answer, and to the connection's close. */
  answeredMs: number;
  closedMs: number;
}

/** Headers with a Content-Length of 1000, then one byte a second until the server closes the connection (or `giveUpMs`). */
function trickle(url: string, giveUpMs: number): Promise<Trickled> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let answer = "";
    let started = 0;
    let answeredMs = -1;
    const socket = connect(Number(port), hostname, () => {
      started = Date.now();
      socket.write(`POST /mcp HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{`);
    });
    const drip = setInterval(() => socket.write(" "), 1000);
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      if (answeredMs === -1) answeredMs = Date.now() - started;
      answer += chunk;
    });
    socket.on("error", () => undefined).on("close", () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      resolve({ answer, answeredMs, closedMs: Date.now() - started });
    });
  });
}

describe("a request body that trickles in", () => {
  let server: HttpServerRun;
  let schemas: string;
  beforeAll(async () => {
    schemas = httpFixtureSchemas();
    server = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0"], { SIGLOOP_MCP_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await server.stop();
  });

  it("is answered 408 with a JSON-RPC error 30 s after its headers, its connection closed, while others are served", async () => {
    // Without the bound Node reads on for its 5-minute requestTimeout: the test gives up 8 s after the bound.
    const slow = trickle(server.url, BODY_TIMEOUT_MS + 8000);
    const { client } = await connectClient(server.url, { authorization: `Bearer ${TOKEN}` });
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5000));
      expect(resultText(await client.callTool({ name: "add", arguments: { a: i, b: 1 } }))).toBe(String(i + 1));
    }
    await client.close();
    const { answer, answeredMs, closedMs } = await slow;
    const [head = "", body] = answer.split("\r\n\r\n");
    expect(head.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    expect(head.toLowerCase()).toContain("\r\nconnection: close");
    expect(JSON.parse(body ?? "")).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: "Request Timeout: the body did not arrive within 30 s of the request's headers; send the whole message at once." }, id: null });
    expect(answeredMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 500);
    expect(answeredMs).toBeLessThan(BODY_TIMEOUT_MS + 3000);
    expect(closedMs - answeredMs).toBeLessThan(2000);
    expect(logLines(server).some((line) => /^http: POST - 408 error \d+ms$/.test(line))).toBe(true);
  }, BODY_TIMEOUT_MS + 20_000);
});
