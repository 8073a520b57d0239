/**
 * The JWT checks a tester found missing, against the real `--http` process and a JWKS server the test
 * controls: a JWKS that answers but cannot be used (500, not JSON, no keys) is said on stderr, with its
 * URL without the query; a `--jwks-url` with credentials is refused at start; a JWT without `exp` is
 * refused.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey as JoseKey } from "jose";
import { httpFixtureSchemas, INITIALIZE, post, startHttpServer, type HttpServerRun } from "./http-support.js";
import { projectRoot, until } from "./support.js";
import { RETRY_MS } from "../../src/mcp/http/jwt-verifier.js";

const issuer = "https://auth.example";
const audience = "https://mcp.team.example/mcp";
const QUERY_SECRET = "q-secret-7d3f9a21c5b8";

type Mode = "good" | "500" | "html" | "empty";
let mode: Mode = "good";
let jwks: Server;
let jwksBase: string;
let key: JoseKey;
let schemas: string;

beforeAll(async () => {
  schemas = httpFixtureSchemas();
  const pair = await generateKeyPair("ES256");
  key = pair.privateKey;
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  jwks = createServer((_req, res) => {
    if (mode === "500") {
      res.writeHead(500, { "content-type": "application/json" });
      res.end('{"error":"down"}');
    } else if (mode === "html") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>sign in</body></html>");
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: mode === "empty" ? [] : [publicJwk] }));
    }
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  jwksBase = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => jwks.close(resolve));
});

function token(options: { kid?: string; exp?: boolean } = {}): Promise<string> {
  const jwt = new SignJWT({ scope: "tools" }).setProtectedHeader({ alg: "ES256", kid: options.kid ?? "k1" }).setIssuer(issuer).setAudience(audience).setSubject("colleague").setIssuedAt();
  if (options.exp !== false) jwt.setExpirationTime(Math.floor(Date.now() / 1000) + 600);
  return jwt.sign(key);
}

function start(jwksUrl: string): Promise<HttpServerRun> {
  return startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--jwks-url", jwksUrl, "--issuer", issuer, "--audience", audience]);
}

const jwksLines = (run: HttpServerRun): string[] => run.stderr().split("\n").filter((line) => line.includes("JWKS"));

describe("a JWKS that answers but cannot be used", () => {
  let run: HttpServerRun;
  beforeAll(async () => {
    run = await start(`${jwksBase}/jwks.json?api_key=${QUERY_SECRET}`);
  });
  afterAll(async () => {
    mode = "good";
    await run.stop();
  });
  // A failed fetch leaves the JWKS alone for RETRY_MS: each case waits it out, so its first JWT asks the JWKS anew.
  beforeEach(() => new Promise((resolve) => setTimeout(resolve, RETRY_MS + 100)));

  const line = (reason: string): string => `mcp: cannot use the JWKS at ${jwksBase}/jwks.json (${reason}); JWTs are refused until it answers with keys (--jwks-url)`;

  it.each([
    ["500", "it answered HTTP 500 Internal Server Error, not 200 OK"],
    ["html", "its answer is not JSON"],
    ["empty", "it holds no keys"],
  ] as const)("JWKS %s: each JWT gets 401, and stderr says why once, naming the URL without its query", async (answer, reason) => {
    mode = answer;
    const jwt = await token();
    for (let i = 0; i < 2; i++) expect((await post(run.url, INITIALIZE, { authorization: `Bearer ${jwt}` })).status).toBe(401);
    await until(() => jwksLines(run).includes(line(reason)));
    expect(jwksLines(run).filter((logged) => logged === line(reason))).toHaveLength(1);
    expect(run.stderr()).not.toContain(jwt);
    expect(run.stderr()).not.toContain(QUERY_SECRET);
  });

  it("once the JWKS has keys again, a JWT passes, and one with a key id it lacks is refused without blaming the JWKS", async () => {
    mode = "good";
    expect((await post(run.url, INITIALIZE, { authorization: `Bearer ${await token()}` })).status).toBe(200);
    const before = jwksLines(run).length;
    expect((await post(run.url, INITIALIZE, { authorization: `Bearer ${await token({ kid: "rotated-away" })}` })).status).toBe(401);
    expect(jwksLines(run)).toHaveLength(before);
  });
});

describe("--jwks-url with credentials", () => {
  it("is refused at start (exit 2) without printing the password or the query", async () => {
    const password = "pw-5e8c1b9d2a7f";
    const args = ["--import", "tsx", path.join(projectRoot, "scripts/mcp.ts"), "--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0"];
    const jwksUrl = `${jwksBase.replace("://", `://svc:${password}@`)}/jwks.json?api_key=${QUERY_SECRET}`;
    // The old code listened instead of exiting: the timeout ends it, so the test fails rather than hangs.
    const child = spawn(process.execPath, [...args, "--jwks-url", jwksUrl, "--issuer", issuer, "--audience", audience], { cwd: projectRoot, env: { PATH: process.env.PATH }, stdio: ["ignore", "pipe", "pipe"], timeout: 10_000 });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(2);
    expect(stderr.split("\n")[0]).toBe(`error: --jwks-url cannot carry a user name or password (fetch refuses such a URL, and a JWKS is public): got "http://***@127.0.0.1:${new URL(jwksBase).port}/jwks.json"`);
    expect(stderr).not.toContain(password);
    expect(stderr).not.toContain(QUERY_SECRET);
  });
});

describe("the expiry of a JWT", () => {
  let run: HttpServerRun;
  beforeAll(async () => {
    mode = "good";
    run = await start(`${jwksBase}/jwks.json`);
  });
  afterAll(async () => {
    await run.stop();
  });

  it("refuses a JWT without exp like any other refused token, and accepts one with it", async () => {
    const port = new URL(run.url).port;
    const refused = await post(run.url, INITIALIZE, { authorization: `Bearer ${await token({ exp: false })}` });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe(`Bearer realm="sigloop", resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource"`);
    expect(refused.json).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: "Unauthorized: send Authorization: Bearer <token> with a token this server accepts." }, id: null });
    expect((await post(run.url, INITIALIZE, { authorization: `Bearer ${await token()}` })).status).toBe(200);
    expect(jwksLines(run)).toEqual([]);
  });
});
