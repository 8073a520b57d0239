/**
 * A client that sends its headers and then trickles its body, one byte a second, against the real
 * `--http` process: it is answered 408 with a JSON-RPC error once `BODY_TIMEOUT_MS` have passed since its
 * headers, its connection is closed, and meanwhile the server serves others. So is each of many such
 * clients at once, an upload slower than the bound allows (which reads the 408, not a reset), and a
 * second request on a kept-alive connection, sent later or pipelined (counted from its own headers); a
 * body completing shortly before the bound is served. Authentication counts in the 30 s, not on top of
 * them: a JWT whose JWKS takes 4 s to answer gets its 408 30 s after its headers, and its body completing
 * shortly before the bound is served. All in one test, so that the 30 s are waited once. A body that
 * breaks off (a malformed chunk) is no wait: Node's 400, the connection closed, the request logged as
 * aborted.
 */
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import path from "node:path";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_TIMEOUT_MS } from "../../src/mcp/http/read-body.js";
import { connectClient, httpFixtureSchemas, INITIALIZE, logLines, post, startHttpServer, type HttpServerRun } from "./http-support.js";
import { resultText, until } from "./support.js";

const TOKEN = "slow-body-token-6c1e9a4f2b7d";
/** How long the JWT server's JWKS takes to answer its first (and only) fetch. */
const JWKS_DELAY_MS = 4000;

interface Trickled {
  answer: string;
  /** From the headers' write to the server's answer, and to the connection's close. */
  answeredMs: number;
  closedMs: number;
}

/** Headers with a Content-Length of 1000, then one byte a second until the server closes the connection (or `giveUpMs`). */
function trickle(url: string, giveUpMs: number, authorization = `Bearer ${TOKEN}`): Promise<Trickled> {
  return exchange(url, giveUpMs, (socket, host, every) => {
    socket.write(`${postHead(host, 1000, authorization)}{`);
    every(1000, () => socket.write(" "));
  });
}

/** Initialize's body, its first 10 bytes at once and the rest `restAfterMs` later. */
function initializeLate(url: string, restAfterMs: number, authorization = `Bearer ${TOKEN}`): Promise<Trickled> {
  return exchange(url, restAfterMs + 8000, (socket, host, _every, later) => {
    socket.write(postHead(host, Buffer.byteLength(INITIALIZE), authorization) + INITIALIZE.slice(0, 10));
    later(restAfterMs, () => socket.write(INITIALIZE.slice(10)));
  });
}

function postHead(host: string, contentLength: number, authorization = `Bearer ${TOKEN}`): string {
  return `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${contentLength}\r\n\r\n`;
}

/** Runs `act` every `ms` (or once after `ms`) until the connection closes. */
type Schedule = (ms: number, act: () => void) => void;

/**
 * A raw connection: `start` writes once connected, and schedules later writes, which stop when the
 * connection closes. `answeredMs` is when the last answer began to arrive (the only one, or the second
 * of a kept-alive connection), from the first write.
 */
function exchange(url: string, giveUpMs: number, start: (socket: Socket, host: string, every: Schedule, later: Schedule) => void): Promise<Trickled> {
  const { hostname, port, host } = new URL(url);
  return new Promise((resolve) => {
    let answer = "";
    let started = 0;
    let answeredMs = -1;
    const timers: NodeJS.Timeout[] = [];
    const socket = connect(Number(port), hostname, () => {
      started = Date.now();
      start(socket, host, (ms, act) => timers.push(setInterval(act, ms)), (ms, act) => timers.push(setTimeout(act, ms)));
    });
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      if (chunk.startsWith("HTTP/1.1 ")) answeredMs = Date.now() - started;
      answer += chunk;
    });
    socket.on("error", () => undefined).on("close", () => {
      for (const timer of timers) clearTimeout(timer);
      clearTimeout(giveUp);
      resolve({ answer, answeredMs, closedMs: Date.now() - started });
    });
  });
}

/** The status line and JSON body of the last answer on a connection. */
function lastAnswer(answer: string): { status: string; head: string; body: unknown } {
  const last = answer.slice(answer.lastIndexOf("HTTP/1.1 "));
  const [head = "", body = ""] = last.split("\r\n\r\n");
  return { status: head.split("\r\n")[0] ?? "", head: head.toLowerCase(), body: JSON.parse(body) };
}

describe("a request body that trickles in", () => {
  let server: HttpServerRun;
  let jwtServer: HttpServerRun;
  let jwks: Server;
  let jwt: string;
  beforeAll(async () => {
    const schemas = httpFixtureSchemas();
    const issuer = "https://auth.example";
    const audience = "https://mcp.team.example/mcp";
    const pair = await generateKeyPair("ES256");
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    jwks = createServer((_req, res) => {
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [publicJwk] })), JWKS_DELAY_MS);
    });
    await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
    jwt = await new SignJWT({}).setProtectedHeader({ alg: "ES256", kid: "k1" }).setIssuer(issuer).setAudience(audience).setSubject("colleague").setIssuedAt().setExpirationTime("10m").sign(pair.privateKey);
    const common = ["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0"];
    [server, jwtServer] = await Promise.all([startHttpServer(common, { SIGLOOP_MCP_TOKEN: TOKEN }), startHttpServer([...common, "--jwks-url", jwksUrl, "--issuer", issuer, "--audience", audience])]);
  });
  afterAll(async () => {
    await Promise.all([server.stop(), jwtServer.stop()]);
    jwks.closeAllConnections();
    await new Promise((resolve) => jwks.close(resolve));
  });

  it("is answered 408 with a JSON-RPC error 30 s after its own headers, its connection closed, however many trickle at once, while others are served", async () => {
    // Without the bound Node reads on until its whole-request bound, 45 s: the test gives up 8 s after the 30.
    const slow = trickle(server.url, BODY_TIMEOUT_MS + 8000);
    const many = Array.from({ length: 20 }, () => trickle(server.url, BODY_TIMEOUT_MS + 8000));
    // 4 MB announced, 1 KB every 20 ms: an upload at about 50 KB/s, which keeps writing as the 408 comes.
    const upload = exchange(server.url, BODY_TIMEOUT_MS + 8000, (socket, host, every) => {
      socket.write(`${postHead(host, 4_000_000)}{`);
      every(20, () => socket.write(" ".repeat(1000)));
    });
    // The first request is answered at once; the second, 3 s later on the same connection, trickles.
    const keptAlive = exchange(server.url, BODY_TIMEOUT_MS + 12_000, (socket, host, every, later) => {
      socket.write(postHead(host, Buffer.byteLength(INITIALIZE)) + INITIALIZE);
      later(3000, () => {
        socket.write(`${postHead(host, 1000)}{`);
        every(1000, () => socket.write(" "));
      });
    });
    // Pipelined: the second request's headers in the same write as the first request, its body trickling.
    const pipelined = exchange(server.url, BODY_TIMEOUT_MS + 8000, (socket, host, every) => {
      socket.write(`${postHead(host, Buffer.byteLength(INITIALIZE))}${INITIALIZE}${postHead(host, 1000)}{`);
      every(1000, () => socket.write(" "));
    });
    const justInTime = initializeLate(server.url, BODY_TIMEOUT_MS - 2000);
    // Both wait the JWKS's 4 s (one fetch, shared) while their bodies arrive.
    const jwtSlow = trickle(jwtServer.url, BODY_TIMEOUT_MS + 8000, `Bearer ${jwt}`);
    const jwtJustInTime = initializeLate(jwtServer.url, BODY_TIMEOUT_MS - 2000, `Bearer ${jwt}`);
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

    const timedOut = { jsonrpc: "2.0", error: { code: -32000, message: "Request Timeout: the body did not arrive within 30 s of the request's headers; send the whole message at once." }, id: null };
    for (const [name, each] of [...(await Promise.all(many)).map((one, i) => [`trickler ${i}`, one] as const), ["upload", await upload] as const]) {
      expect(lastAnswer(each.answer), name).toMatchObject({ status: "HTTP/1.1 408 Request Timeout", body: timedOut });
      expect(each.answeredMs, name).toBeLessThan(BODY_TIMEOUT_MS + 3000);
      expect(each.closedMs - each.answeredMs, name).toBeLessThan(2000);
    }
    for (const [name, second, headersAtMs] of [["kept alive", await keptAlive, 3000], ["pipelined", await pipelined, 0]] as const) {
      expect(second.answer.startsWith("HTTP/1.1 200 OK\r\n"), `${name}: the first request on the connection`).toBe(true);
      expect(lastAnswer(second.answer), name).toMatchObject({ status: "HTTP/1.1 408 Request Timeout", body: timedOut });
      expect(second.answeredMs, name).toBeGreaterThanOrEqual(headersAtMs + BODY_TIMEOUT_MS - 500);
      expect(second.answeredMs, name).toBeLessThan(headersAtMs + BODY_TIMEOUT_MS + 3000);
      expect(second.closedMs - second.answeredMs, name).toBeLessThan(2000);
    }
    for (const [name, served] of [["static token", await justInTime], ["JWT", await jwtJustInTime]] as const) {
      expect(served.answer.startsWith("HTTP/1.1 200 OK\r\n"), name).toBe(true);
      expect(served.answer, name).toContain('"protocolVersion":"2025-11-25"');
    }
    const afterJwks = await jwtSlow;
    expect(lastAnswer(afterJwks.answer)).toMatchObject({ status: "HTTP/1.1 408 Request Timeout", body: timedOut });
    expect(afterJwks.answeredMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 500);
    expect(afterJwks.answeredMs, "counted from the headers, not from the JWKS's answer").toBeLessThan(BODY_TIMEOUT_MS + JWKS_DELAY_MS - 500);
    // One line for each 408 (the first trickler, the 20, the upload, the kept-alive and pipelined seconds), written as each response ended.
    const timeouts = (): number => logLines(server).filter((line) => /^http: POST - 408 error \d+ms$/.test(line)).length;
    await Promise.race([until(() => timeouts() === 24), new Promise((resolve) => setTimeout(resolve, 5000))]);
    expect(timeouts()).toBe(24);
  }, BODY_TIMEOUT_MS + 30_000);

  it("closes the connection of a body that breaks off (a malformed chunk) with a 400, logged as aborted, and goes on serving", async () => {
    const aborted = (): number => logLines(server).filter((line) => /^http: POST - aborted - \d+ms$/.test(line)).length;
    const before = aborted();
    const broken = await exchange(server.url, 10_000, (socket, host) => {
      socket.write(postHead(host, 0).replace("Content-Length: 0", "Transfer-Encoding: chunked") + '5\r\n{"jso\r\nZZ\r\n');
    });
    expect(broken.answer).toBe("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
    expect(broken.closedMs).toBeLessThan(5000);
    await until(() => aborted() > before);
    expect((await post(server.url, INITIALIZE, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });
});
