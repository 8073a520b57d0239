/**
 * What a JWT's times and type may be: `exp`, `nbf` and `iat` are allowed `CLOCK_SKEW_S` (30 s) of clock
 * difference and no more, and `typ` must be an access token's (`at+jwt`, `JWT`, with or without
 * `application/`, any case) or absent; any other type gets 401 with a WWW-Authenticate error_description
 * saying why. Against the real `--http` process, and against the verifier with a fixed clock for the
 * exact edges.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompactSign, exportJWK, generateKeyPair, SignJWT, type CryptoKey as JoseKey, type JWTHeaderParameters } from "jose";
import { CLOCK_SKEW_S, jwtVerifier } from "../../src/mcp/http/jwt-verifier.js";
import { httpFixtureSchemas, INITIALIZE, post, startHttpServer, type HttpServerRun } from "./http-support.js";

const issuer = "https://auth.example";
const audience = "https://mcp.team.example/mcp";
const UNAUTHORIZED = { jsonrpc: "2.0", error: { code: -32000, message: "Unauthorized: send Authorization: Bearer <token> with a token this server accepts." }, id: null };
let jwks: Server;
let jwksUrl: string;
let key: JoseKey;

beforeAll(async () => {
  const pair = await generateKeyPair("ES256");
  key = pair.privateKey;
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  jwks = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
});
afterAll(async () => {
  await new Promise((resolve) => jwks.close(resolve));
});

const nowS = (): number => Math.floor(Date.now() / 1000);

/** A JWT for `colleague` with `exp` 10 minutes after `at` unless `times` say otherwise; `typ` absent unless given. */
function sign(times: { exp?: number; nbf?: number; iat?: number } = {}, header: Partial<JWTHeaderParameters> = {}, at = nowS()): Promise<string> {
  const jwt = new SignJWT({ scope: "tools", ...times }).setProtectedHeader({ alg: "ES256", kid: "k1", ...header }).setIssuer(issuer).setAudience(audience).setSubject("colleague");
  if (times.exp === undefined) jwt.setExpirationTime(at + 600);
  if (times.iat === undefined) jwt.setIssuedAt(at);
  return jwt.sign(key);
}

describe("against the server", () => {
  let run: HttpServerRun;
  let challenge: string;
  beforeAll(async () => {
    const schemas = httpFixtureSchemas();
    run = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--jwks-url", jwksUrl, "--issuer", issuer, "--audience", audience]);
    challenge = `Bearer realm="sigloop", resource_metadata="http://127.0.0.1:${new URL(run.url).port}/.well-known/oauth-protected-resource"`;
  });
  afterAll(async () => {
    await run.stop();
  });

  const initialize = (jwt: string): ReturnType<typeof post> => post(run.url, INITIALIZE, { authorization: `Bearer ${jwt}` });

  // Five seconds either side of the allowance, so a second ticking over between signing and checking changes nothing.
  it.each([
    ["exp passed 25 s ago", { exp: -25 }],
    ["nbf 25 s ahead", { nbf: 25 }],
    ["iat 25 s ahead", { iat: 25 }],
  ])("accepts a JWT whose %s (a clock a little off the issuer's)", async (_name, offsets) => {
    const times = Object.fromEntries(Object.entries(offsets).map(([claim, offset]) => [claim, nowS() + offset]));
    expect((await initialize(await sign(times))).status).toBe(200);
  });

  it.each([
    ["exp passed 35 s ago", { exp: -35 }],
    ["nbf 35 s ahead", { nbf: 35 }],
    ["iat 35 s ahead", { iat: 35 }],
  ])("refuses a JWT whose %s with the usual 401", async (_name, offsets) => {
    const times = Object.fromEntries(Object.entries(offsets).map(([claim, offset]) => [claim, nowS() + offset]));
    const refused = await initialize(await sign(times));
    expect([refused.status, refused.headers.get("www-authenticate"), refused.json]).toEqual([401, challenge, UNAUTHORIZED]);
  });

  it("accepts a JWT typed as an access token (at+jwt, application/at+jwt), as JWT in any case, or untyped", async () => {
    for (const typ of ["at+jwt", "application/at+jwt", "AT+JWT", "Application/At+JWT", "JWT", "jwt", "application/jwt", undefined]) {
      expect((await initialize(await sign({}, typ !== undefined ? { typ } : {}))).status, String(typ)).toBe(200);
    }
  });

  it("refuses a JWT typed for something else with 401, its WWW-Authenticate saying why", async () => {
    const port = new URL(run.url).port;
    for (const typ of ["id+jwt", "logout+jwt", "secevent+jwt", "dpop+jwt", "application/id+jwt", "at+jwt2", ""]) {
      const refused = await initialize(await sign({}, { typ }));
      const named = typ !== "" ? ` ${typ}` : "";
      const description = `the JWT's typ${named} is not that of an access token; send an access token (typ at+jwt, JWT or none)`;
      expect([refused.status, refused.json], typ).toEqual([401, UNAUTHORIZED]);
      expect(refused.headers.get("www-authenticate"), typ).toBe(`Bearer realm="sigloop", error="invalid_token", error_description="${description}", resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource"`);
    }
  });

  it("goes on serving after a typ that could not stand inside a header, or is no string: the reason then names no type", async () => {
    for (const typ of ['id"+jwt', "x\r\nSet-Cookie: a=b", "jwt\\", "ïd+jwt", 7, { kind: "jwt" }, ["jwt"], null, "a".repeat(65)]) {
      const refused = await initialize(await sign({}, { typ: typ as string }));
      expect(refused.status, JSON.stringify(typ)).toBe(401);
      expect(refused.headers.get("www-authenticate")).toContain(`error_description="the JWT's typ is not that of an access token; send an access token (typ at+jwt, JWT or none)"`);
      expect(refused.headers.get("set-cookie")).toBeNull();
    }
    expect((await initialize(await sign())).status).toBe(200);
  });
});

describe("the verifier with a fixed clock", () => {
  const now = nowS();
  const verify = (jwt: string): ReturnType<ReturnType<typeof jwtVerifier>> => jwtVerifier({ jwksUrl, issuer, audience }, () => undefined, () => now * 1000)(jwt);

  it(`accepts exp, nbf and iat up to ${CLOCK_SKEW_S} s off, and refuses them a second beyond`, async () => {
    const accepted = { ok: true, subject: "sub:colleague" };
    expect(await verify(await sign({ exp: now - CLOCK_SKEW_S + 1 }, {}, now))).toEqual(accepted);
    expect(await verify(await sign({ exp: now - CLOCK_SKEW_S }, {}, now))).toEqual({ ok: false });
    expect(await verify(await sign({ nbf: now + CLOCK_SKEW_S }, {}, now))).toEqual(accepted);
    expect(await verify(await sign({ nbf: now + CLOCK_SKEW_S + 1 }, {}, now))).toEqual({ ok: false });
    expect(await verify(await sign({ iat: now + CLOCK_SKEW_S }, {}, now))).toEqual(accepted);
    expect(await verify(await sign({ iat: now + CLOCK_SKEW_S + 1 }, {}, now))).toEqual({ ok: false });
  });

  // Claims as an issuer might write them, where SignJWT would refuse to: the payload's JSON is signed as it stands.
  const signRaw = (claims: string): Promise<string> => new CompactSign(new TextEncoder().encode(`{"iss":"${issuer}","aud":"${audience}","sub":"colleague",${claims}}`)).setProtectedHeader({ alg: "ES256", kid: "k1" }).sign(key);

  it("refuses, without a reason, an iat that is no number or past every clock (1e400 reads as Infinity), and an nbf without exp", async () => {
    expect(await verify(await signRaw(`"exp":${now + 600},"iat":${now}`))).toEqual({ ok: true, subject: "sub:colleague" });
    for (const claims of [`"exp":${now + 600},"iat":"${now}"`, `"exp":${now + 600},"iat":1e400`, `"exp":${now + 600},"iat":[${now}]`, `"nbf":${now - 10},"iat":${now}`]) {
      expect(await verify(await signRaw(claims)), claims).toEqual({ ok: false });
    }
  });

  it("takes exactly the access-token types, and any refusal's reason can stand inside a quoted header parameter", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.constantFrom("at+jwt", "JWT", "application/AT+jwt", "id+jwt", 'a"b', "a\\b", "a\nb")), async (typ) => {
        const outcome = await verify(await sign({}, { typ }, now));
        const accessType = ["at+jwt", "jwt"].includes(typ.toLowerCase().replace(/^application\//, ""));
        expect(outcome.ok).toBe(accessType);
        if (!outcome.ok) expect(outcome.reason).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
      }),
      { numRuns: 200 },
    );
  });
});
