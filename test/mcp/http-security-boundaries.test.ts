/**
 * `mcp --http` attacked as a remote client would, over real HTTP and raw sockets on 127.0.0.1 against
 * the real process: a session is answered only to the credential that opened it (static token or JWT
 * subject); a JWKS that cannot be used is not asked once per incoming JWT; a refused client cannot hold
 * a connection by trickling its body; a blank `$SIGLOOP_MCP_TOKEN` is refused rather than leaving the
 * server open. And what held up and must go on holding: forged JWTs (alg none, HS256 with the public key,
 * a `jku` to the attacker's keys, unknown `crit`), the scheme and duplicate `Authorization` headers, the
 * `Host` variants a rebinding page could send, and deeply nested bodies.
 */
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey as JoseKey } from "jose";
import { tokenIndex } from "../../src/mcp/http/bearer-tokens.js";
import { RETRY_MS } from "../../src/mcp/http/jwt-verifier.js";
import { connectClient, httpFixtureSchemas, INITIALIZE, post, refusedStart, startHttpServer, type HttpServerRun } from "./http-support.js";
import { resultText, tempDir } from "./support.js";

const TOKEN_A = "alice-token-3b8e1f6c9d2a7054";
const TOKEN_B = "bob-token-8f2c6e1a9b3d7045";
const PROTOCOL = { "mcp-protocol-version": "2025-11-25" };
const NOT_FOUND = { jsonrpc: "2.0", error: { code: -32001, message: "Session not found: it ended or never existed; send initialize again for a new session." } };
let schemas: string;

beforeAll(() => {
  schemas = httpFixtureSchemas();
});

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const callAdd = (id: number): string => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 1 } } });

/** Writes `text` on a raw socket; resolves with the status line of the answer (empty when none came within `ms`). */
function rawStatus(url: string, text: string, ms = 3000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let got = "";
    const socket = connect(Number(port), hostname, () => socket.write(text));
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      got += chunk;
      if (got.includes("\r\n")) socket.destroy();
    });
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.on("error", () => undefined).on("close", () => {
      clearTimeout(timer);
      resolve(got.split("\r\n")[0] ?? "");
    });
  });
}

/** An initialize request as raw bytes, with the given header lines (each ending in CRLF). */
function rawInitialize(headerLines: string): string {
  return `POST /mcp HTTP/1.1\r\n${headerLines}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${INITIALIZE.length}\r\nConnection: close\r\n\r\n${INITIALIZE}`;
}

describe("two static tokens", () => {
  let server: HttpServerRun;
  let host: string;
  beforeAll(async () => {
    const file = path.join(tempDir(), "tokens");
    writeFileSync(file, `${TOKEN_A}\n${TOKEN_B}\n`);
    server = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--token-file", file]);
    host = `127.0.0.1:${new URL(server.url).port}`;
  });
  afterAll(async () => {
    await server.stop();
  });

  it("answers a session only to the token that opened it: another token's call, stream and DELETE get 404, and the session goes on", async () => {
    const { client, transport } = await connectClient(server.url, { authorization: `Bearer ${TOKEN_A}` });
    const stolen = { authorization: `Bearer ${TOKEN_B}`, "mcp-session-id": transport.sessionId ?? "", ...PROTOCOL };
    const call = await post(server.url, callAdd(5), stolen);
    expect([call.status, call.json]).toEqual([404, { ...NOT_FOUND, id: 5 }]);
    const stream = await fetch(server.url, { headers: { ...stolen, accept: "text/event-stream" } });
    expect([stream.status, await stream.json()]).toEqual([404, { ...NOT_FOUND, id: null }]);
    const end = await fetch(server.url, { method: "DELETE", headers: stolen });
    expect([end.status, await end.json()]).toEqual([404, { ...NOT_FOUND, id: null }]);
    expect(resultText(await client.callTool({ name: "add", arguments: { a: 2, b: 2 } }))).toBe("4");
    await client.close();
  });

  it("reads the scheme in any case, and only the first of two Authorization headers", async () => {
    expect(await rawStatus(server.url, rawInitialize(`Host: ${host}\r\nauthorization: bearer ${TOKEN_A}\r\n`))).toBe("HTTP/1.1 200 OK");
    expect(await rawStatus(server.url, rawInitialize(`Host: ${host}\r\nAuthorization: Bearer wrong\r\nAuthorization: Bearer ${TOKEN_A}\r\n`))).toBe("HTTP/1.1 401 Unauthorized");
    expect(await rawStatus(server.url, rawInitialize(`Host: ${host}\r\nAuthorization: Bearer ${TOKEN_A},Bearer x\r\n`))).toBe("HTTP/1.1 401 Unauthorized");
  });

  it("refuses each Host a rebinding page could send that is not exactly this server (trailing dot, 127.1, no port, another loopback)", async () => {
    const port = new URL(server.url).port;
    for (const refused of [`localhost.:${port}`, `127.1:${port}`, "127.0.0.1", `[::1]:${port}`, `127.0.0.1:0${port}`, `127.0.0.1:${port}, evil.example`]) {
      expect(await rawStatus(server.url, rawInitialize(`Host: ${refused}\r\nAuthorization: Bearer ${TOKEN_A}\r\n`)), refused).toBe("HTTP/1.1 403 Forbidden");
    }
    expect(await rawStatus(server.url, rawInitialize(`Host: LOCALHOST:${port}\r\nAuthorization: Bearer ${TOKEN_A}\r\n`))).toBe("HTTP/1.1 200 OK");
  });

  it("closes the connection of a client that goes on trickling its body after a 401, within 5 s", async () => {
    const { hostname, port } = new URL(server.url);
    const started = Date.now();
    const { status, openMs } = await new Promise<{ status: string; openMs: number }>((resolve) => {
      let got = "";
      const socket = connect(Number(port), hostname, () => socket.write(`POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{`));
      const trickle = setInterval(() => socket.write(" "), 200);
      // Without the bound the server reads on for its 5-minute requestTimeout: the test gives up at 9 s.
      const giveUp = setTimeout(() => socket.destroy(), 9000);
      socket.setEncoding("utf8").on("data", (chunk: string) => (got += chunk));
      socket.on("error", () => undefined).on("close", () => {
        clearInterval(trickle);
        clearTimeout(giveUp);
        resolve({ status: got.split("\r\n")[0] ?? "", openMs: Date.now() - started });
      });
    });
    expect(status).toBe("HTTP/1.1 401 Unauthorized");
    expect(openMs).toBeGreaterThanOrEqual(4500);
    expect(openMs).toBeLessThan(8000);
  }, 15_000);

  it("answers a deeply nested body and goes on serving", async () => {
    const { client, transport } = await connectClient(server.url, { authorization: `Bearer ${TOKEN_A}` });
    const depth = 200_000;
    const nested = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":${'{"x":'.repeat(depth)}1${"}".repeat(depth)}},"x":${"[".repeat(depth)}${"]".repeat(depth)}}}`;
    const answer = await post(server.url, nested, { authorization: `Bearer ${TOKEN_A}`, "mcp-session-id": transport.sessionId ?? "", ...PROTOCOL });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("nested too deeply to read");
    expect(resultText(await client.callTool({ name: "add", arguments: { a: 3, b: 4 } }))).toBe("7");
    await client.close();
  });
});

describe("the static tokens", () => {
  it("tells which configured token was presented, and nothing for any other", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 5 }), fc.string(), (tokens, presented) => {
        const index = tokenIndex(tokens);
        expect(index(presented)).toBe(tokens.includes(presented) ? tokens.indexOf(presented) : undefined);
        tokens.forEach((token, i) => expect(index(token)).toBe(i));
      }),
    );
  });

  it("refuses to start with a blank $SIGLOOP_MCP_TOKEN (exit 2) rather than serve without any token", async () => {
    const run = await refusedStart(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0"], { SIGLOOP_MCP_TOKEN: " " });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("error: $SIGLOOP_MCP_TOKEN is set but empty: give it the token, or unset it to serve a loopback address without one\n");
    expect(run.stderr).not.toContain("listening on");
  });
});

describe("JWTs", () => {
  const issuer = "https://auth.example";
  const audience = "https://mcp.team.example/mcp";
  let jwksUp = false;
  let jwksHits = 0;
  let jwks: Server;
  let attacker: Server;
  let attackerHits = 0;
  let run: HttpServerRun;
  let key: JoseKey;
  let attackerKey: JoseKey;
  let publicJwk: Record<string, unknown>;

  const listen = async (server: Server): Promise<string> => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  };

  beforeAll(async () => {
    const pair = await generateKeyPair("ES256");
    const stranger = await generateKeyPair("ES256");
    key = pair.privateKey;
    attackerKey = stranger.privateKey;
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    const attackerJwk = { ...(await exportJWK(stranger.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    jwks = createServer((_req, res) => {
      jwksHits += 1;
      res.writeHead(jwksUp ? 200 : 503, { "content-type": "application/json" });
      res.end(jwksUp ? JSON.stringify({ keys: [publicJwk] }) : "{}");
    });
    attacker = createServer((_req, res) => {
      attackerHits += 1;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [attackerJwk] }));
    });
    const jwksUrl = await listen(jwks);
    await listen(attacker);
    run = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--jwks-url", jwksUrl, "--issuer", issuer, "--audience", audience]);
  });
  afterAll(async () => {
    await run.stop();
    await new Promise((resolve) => jwks.close(resolve));
    await new Promise((resolve) => attacker.close(resolve));
  });

  const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");
  const claims = (sub: string): Record<string, unknown> => ({ iss: issuer, aud: audience, sub, exp: Math.floor(Date.now() / 1000) + 600 });
  const sign = (payload: Record<string, unknown>, header: Record<string, unknown> = {}, with_ = key): Promise<string> =>
    new SignJWT(payload).setProtectedHeader({ alg: "ES256", kid: "k1", ...header }).setIssuedAt().setJti(Math.random().toString(36)).sign(with_);

  it("asks a JWKS that cannot be used at most once a second, however many JWTs arrive, and uses it once it can", async () => {
    const junk = `${b64({ alg: "ES256", kid: "k1" })}.${b64(claims("mallory"))}.AAAA`;
    const started = Date.now();
    for (let i = 0; i < 40; i++) expect((await post(run.url, INITIALIZE, { authorization: `Bearer ${junk}` })).status).toBe(401);
    expect(jwksHits).toBeLessThanOrEqual(1 + Math.ceil((Date.now() - started) / RETRY_MS));
    expect(jwksHits).toBeLessThan(10);
    jwksUp = true;
    await delay(RETRY_MS + 100);
    expect((await post(run.url, INITIALIZE, { authorization: `Bearer ${await sign(claims("alice"))}` })).status).toBe(200);
  });

  it("answers a session only to the subject that opened it, also with a refreshed token", async () => {
    const { client, transport } = await connectClient(run.url, { authorization: `Bearer ${await sign(claims("alice"))}` });
    const session = { "mcp-session-id": transport.sessionId ?? "", ...PROTOCOL };
    const bob = await post(run.url, callAdd(6), { ...session, authorization: `Bearer ${await sign(claims("bob"))}` });
    expect([bob.status, bob.json]).toEqual([404, { ...NOT_FOUND, id: 6 }]);
    const refreshed = await post(run.url, callAdd(7), { ...session, authorization: `Bearer ${await sign(claims("alice"))}` });
    expect(refreshed.status).toBe(200);
    expect(refreshed.text).toContain('"text":"2"');
    await client.close();
  });

  it("refuses forged JWTs: alg none, HS256 keyed with the public key, a jku or x5u to the attacker's keys, an unknown crit", async () => {
    const payload = b64(claims("mallory"));
    const hsInput = `${b64({ alg: "HS256", kid: "k1" })}.${payload}`;
    const attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/jwks.json`;
    const forged = [
      `${b64({ alg: "none", typ: "JWT" })}.${payload}.`,
      `${b64({ alg: "none", typ: "JWT" })}.${payload}.AAAA`,
      `${hsInput}.${createHmac("sha256", JSON.stringify(publicJwk)).update(hsInput).digest("base64url")}`,
      await sign(claims("mallory"), { jku: attackerUrl, x5u: attackerUrl }, attackerKey),
      `${b64({ alg: "ES256", kid: "k1", crit: ["exp"] })}.${payload}.AAAA`,
    ];
    for (const jwt of forged) expect((await post(run.url, INITIALIZE, { authorization: `Bearer ${jwt}` })).status).toBe(401);
    expect(attackerHits).toBe(0);
  });
});
