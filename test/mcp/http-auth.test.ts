/**
 * Who may use the HTTP server: bearer tokens from a file and the environment, JWTs checked against a
 * JWKS the test serves, the loopback-only rule without tokens, and the DNS-rebinding checks made before
 * authentication, all against the real process.
 */
import { request } from "node:http";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey as JoseKey } from "jose";
import { connectClient, httpFixtureSchemas, INITIALIZE, logLines, post, refusedStart, startHttpServer, type HttpServerRun } from "./http-support.js";
import { resultText, tempDir } from "./support.js";

const FILE_TOKEN = "file-token-4f9c2a7d1e8b6035";
const ENV_TOKEN = "env-token-9a1b7c3d5e2f4068";
let schemas: string;
let server: HttpServerRun;

beforeAll(async () => {
  schemas = httpFixtureSchemas();
  const tokenFile = path.join(tempDir(), "tokens");
  writeFileSync(tokenFile, `# tokens for the team\r\n\r\n${FILE_TOKEN}\r\n  # another comment\n`);
  server = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--token-file", tokenFile, "--allow-origin", "https://app.example"], { SIGLOOP_MCP_TOKEN: ENV_TOKEN });
});
afterAll(async () => {
  await server.stop();
});

/** A raw request with any Host header (fetch sets its own). */
function rawGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end(INITIALIZE);
  });
}

describe("bearer tokens", () => {
  it("accepts a token from the file and one from SIGLOOP_MCP_TOKEN", async () => {
    for (const token of [FILE_TOKEN, ENV_TOKEN]) {
      const { client } = await connectClient(server.url, { authorization: `Bearer ${token}` });
      expect(resultText(await client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("3");
      await client.close();
    }
    expect(server.stderr()).not.toContain(FILE_TOKEN);
    expect(server.stderr()).not.toContain(ENV_TOKEN);
  });

  it("gives a missing and a wrong token the same 401, with WWW-Authenticate and a JSON-RPC error", async () => {
    const missing = await post(server.url, INITIALIZE);
    const wrong = await post(server.url, INITIALIZE, { authorization: `Bearer ${FILE_TOKEN}x` });
    const otherScheme = await post(server.url, INITIALIZE, { authorization: `Basic ${Buffer.from(`u:${FILE_TOKEN}`).toString("base64")}` });
    for (const answer of [missing, wrong, otherScheme]) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="sigloop"');
      expect(answer.json).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: "Unauthorized: send Authorization: Bearer <token> with a token this server accepts." }, id: null });
    }
    expect(logLines(server).some((line) => /^http: POST - 401 error [0-9]+ms$/.test(line))).toBe(true);
  });

  it("answers /healthz without a token, and says nothing else", async () => {
    const health = await fetch(new URL("/healthz", server.url));
    expect([health.status, await health.text(), health.headers.get("content-type")]).toEqual([200, "ok", "text/plain; charset=utf-8"]);
  });
});

describe("DNS rebinding", () => {
  it("refuses a foreign Origin and Origin: null with 403 before asking for a token", async () => {
    for (const origin of ["https://evil.example", "null", "http://localhost:1"]) {
      const answer = await post(server.url, INITIALIZE, { origin });
      expect(answer.status).toBe(403);
      expect(answer.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32000, message: expect.stringMatching(/^Forbidden: /) }, id: null });
    }
  });

  it("lets the server's own origins and --allow-origin through to authentication", async () => {
    const port = new URL(server.url).port;
    for (const origin of ["https://app.example", `http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]) {
      expect((await post(server.url, INITIALIZE, { origin })).status).toBe(401);
      expect((await post(server.url, INITIALIZE, { origin, authorization: `Bearer ${ENV_TOKEN}` })).status).toBe(200);
    }
  });

  it("on a loopback bind, refuses a Host that is not the bound address or localhost with its port", async () => {
    const port = new URL(server.url).port;
    const auth = { authorization: `Bearer ${ENV_TOKEN}` };
    expect(await rawGet(server.url, { ...auth, host: `evil.example:${port}` })).toBe(403);
    expect(await rawGet(server.url, { ...auth, host: "localhost:1" })).toBe(403);
    expect(await rawGet(server.url, { ...auth, host: `localhost:${port}` })).toBe(200);
    expect(await rawGet(server.url, { ...auth, host: `127.0.0.1:${port}` })).toBe(200);
  });
});

describe("where a server without tokens may listen", () => {
  it("refuses a non-loopback address without any token (exit 2, saying why)", async () => {
    const run = await refusedStart(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0.0.0.0:0"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("error: --http 0.0.0.0:0 is reachable from other machines, and no token is configured");
  });

  it("serves a non-loopback address with a token, without checking Host", async () => {
    const open = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0.0.0.0:0"], { SIGLOOP_MCP_TOKEN: ENV_TOKEN });
    try {
      expect(open.url).toMatch(/^http:\/\/0\.0\.0\.0:[0-9]+\/mcp$/);
      const url = open.url.replace("0.0.0.0", "127.0.0.1");
      expect(await rawGet(url, { authorization: `Bearer ${ENV_TOKEN}`, host: "mcp.team.example" })).toBe(200);
    } finally {
      await open.stop();
    }
  });

  it("serves IPv6 loopback as [::1]:PORT without a token", async () => {
    const v6 = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "[::1]:0"]);
    try {
      expect(v6.url).toMatch(/^http:\/\/\[::1\]:[0-9]+\/mcp$/);
      const { client } = await connectClient(v6.url);
      expect(resultText(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");
      await client.close();
    } finally {
      await v6.stop();
    }
  });
});

describe("JWTs from an authorization server", () => {
  const issuer = "https://auth.example";
  let audience: string;
  let jwks: Server;
  let jwtServer: HttpServerRun;
  let key: JoseKey;
  let strangerKey: JoseKey;

  beforeAll(async () => {
    const pair = await generateKeyPair("ES256");
    const stranger = await generateKeyPair("ES256");
    key = pair.privateKey;
    strangerKey = stranger.privateKey;
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    jwks = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [publicJwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
    audience = "https://mcp.team.example/mcp";
    jwtServer = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--jwks-url", jwksUrl, "--issuer", issuer, "--audience", audience]);
  });
  afterAll(async () => {
    await jwtServer.stop();
    await new Promise((resolve) => jwks.close(resolve));
  });

  function token(options: { signWith?: JoseKey; audience?: string; expiresAt?: number } = {}): Promise<string> {
    return new SignJWT({ scope: "tools" })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer(issuer)
      .setAudience(options.audience ?? audience)
      .setSubject("colleague")
      .setIssuedAt()
      .setExpirationTime(options.expiresAt ?? Math.floor(Date.now() / 1000) + 600)
      .sign(options.signWith ?? key);
  }

  it("accepts a valid token signed by a key of the JWKS", async () => {
    const { client } = await connectClient(jwtServer.url, { authorization: `Bearer ${await token()}` });
    expect(resultText(await client.callTool({ name: "add", arguments: { a: 4, b: 4 } }))).toBe("8");
    await client.close();
  });

  it("refuses an expired token, one for another audience and one signed by another key, pointing at the metadata", async () => {
    const port = new URL(jwtServer.url).port;
    const bad = [await token({ expiresAt: Math.floor(Date.now() / 1000) - 60 }), await token({ audience: "https://other.example" }), await token({ signWith: strangerKey })];
    for (const jwt of bad) {
      const answer = await post(jwtServer.url, INITIALIZE, { authorization: `Bearer ${jwt}` });
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toBe(`Bearer realm="sigloop", resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource"`);
    }
  });

  it("refuses JWTs while the JWKS cannot be fetched, and says so on stderr without the token", async () => {
    const unreachable = createServer();
    await new Promise<void>((resolve) => unreachable.listen(0, "127.0.0.1", resolve));
    const deadUrl = `http://127.0.0.1:${(unreachable.address() as AddressInfo).port}/jwks.json`;
    await new Promise((resolve) => unreachable.close(resolve));
    const blind = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--jwks-url", deadUrl, "--issuer", issuer, "--audience", audience]);
    try {
      const jwt = await token();
      expect((await post(blind.url, INITIALIZE, { authorization: `Bearer ${jwt}` })).status).toBe(401);
      expect(blind.stderr()).toContain(`mcp: cannot use the JWKS at ${deadUrl} (`);
      expect(blind.stderr()).not.toContain(jwt);
    } finally {
      await blind.stop();
    }
  });

  it("publishes the OAuth protected-resource metadata without authentication", async () => {
    const answer = await fetch(new URL("/.well-known/oauth-protected-resource", jwtServer.url));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ resource: audience, authorization_servers: [issuer], bearer_methods_supported: ["header"], resource_name: "sigloop" });
    const posted = await fetch(new URL("/.well-known/oauth-protected-resource", jwtServer.url), { method: "POST", body: "{}" });
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET, HEAD");
  });
});
