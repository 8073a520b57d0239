/**
 * Headers that do not arrive whole within `HEADERS_TIMEOUT_MS` (10 s) of the connection's start: a client
 * that stops halfway, one that trickles them a byte at a time, one that connects and sends nothing. Each
 * gets Node's 408 and its connection is closed within a second or so of the bound (Node's own 60 s, checked
 * every 30 s, would hold them up to 90 s), while the server goes on answering others, and a kept-alive
 * connection older than the bound goes on being served (the bound is each request's, not the connection's).
 */
import { connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEADERS_TIMEOUT_MS } from "../../src/mcp/http/serve-http.js";
import { httpFixtureSchemas, INITIALIZE, post, startHttpServer, type HttpServerRun } from "./http-support.js";

const TOKEN = "slow-headers-token-93c1d0e7a2";
/** Past the bound, well before Node's own 60 s: a connection still open then was not bounded. */
const GIVE_UP_MS = HEADERS_TIMEOUT_MS + 8000;

interface Held {
  /** The status line the server wrote first, if any, and all it wrote. */
  status: string;
  answer: string;
  closedMs: number;
}

/** Connects, sends `first`, then `each` every `everyMs` (when given), until the server closes the connection or `giveUpMs` have passed. */
function holdHeaders(url: string, first: string, each?: string, everyMs = 500, giveUpMs = GIVE_UP_MS): Promise<Held> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let answer = "";
    const started = Date.now();
    const socket = connect(Number(port), hostname, () => socket.write(first));
    const drip = setInterval(() => each !== undefined && socket.write(each), everyMs);
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.setEncoding("utf8").on("data", (chunk: string) => (answer += chunk));
    socket.on("error", () => undefined).on("close", () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      resolve({ status: answer.split("\r\n")[0] ?? "", closedMs: Date.now() - started, answer });
    });
  });
}

describe("request headers that do not arrive in time", () => {
  let server: HttpServerRun;
  beforeAll(async () => {
    const schemas = httpFixtureSchemas();
    server = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0"], { SIGLOOP_MCP_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await server.stop();
  });

  it("get 408 and a closed connection once the headers' bound has passed, while others are served, a kept-alive connection older than the bound included", async () => {
    const host = new URL(server.url).host;
    const halfway = holdHeaders(server.url, `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n`);
    const trickled = holdHeaders(server.url, `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nX-Padding: `, "x");
    const silent = holdHeaders(server.url, "");
    const probe = `GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
    const keptAlive = holdHeaders(server.url, probe, probe, 3000, HEADERS_TIMEOUT_MS + 3500);
    await new Promise((resolve) => setTimeout(resolve, HEADERS_TIMEOUT_MS / 2));
    expect((await post(server.url, INITIALIZE, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    for (const [name, held] of Object.entries({ halfway: await halfway, trickled: await trickled, silent: await silent })) {
      expect(held.closedMs, name).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 500);
      expect(held.closedMs, name).toBeLessThan(HEADERS_TIMEOUT_MS + 3000);
      expect(held.status, name).toBe("HTTP/1.1 408 Request Timeout");
    }
    // Asked at 0, 3, 6, 9 and 12 s, each answered; the test then leaves the connection.
    expect((await keptAlive).answer.match(/HTTP\/1\.1 200 OK\r\n/g)?.length).toBe(5);
  }, GIVE_UP_MS + 10_000);
});
