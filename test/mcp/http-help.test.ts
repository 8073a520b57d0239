/**
 * What `mcp --help` tells about the HTTP server beyond its flags: that a session is held to the
 * credential that opened it, which JWTs pass (typ and clock skew), and how long a body and headers may take,
 * with the numbers the server uses.
 */
import { describe, expect, it } from "vitest";
import { CLOCK_SKEW_S } from "../../src/mcp/http/jwt-verifier.js";
import { BODY_TIMEOUT_MS } from "../../src/mcp/http/read-body.js";
import { HEADERS_TIMEOUT_MS } from "../../src/mcp/http/serve-http.js";
import { runMcp } from "./support.js";

describe("mcp --help over HTTP", () => {
  it("says a session belongs to the credential that opened it, which JWTs pass, and the body's and headers' time limits", async () => {
    const run = await runMcp(["--help"]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    const jwks = lines.findIndex((line) => line.startsWith("  --jwks-url URL "));
    expect(lines[jwks]).toBe("  --jwks-url URL        accept JWTs signed by a key of this JWKS (needs --issuer and --audience)");
    expect(lines[jwks + 1]).toBe(`                        whose typ is at+jwt, JWT or none; exp, nbf and iat may be ${CLOCK_SKEW_S} s off`);
    expect(run.stdout).toContain(
      [
        "  A session belongs to the token (or JWT subject) that opened it: to any other credential its id is",
        `  unknown, and it gets 404 as for an ended session. A request body must arrive within ${BODY_TIMEOUT_MS / 1000} s of its`,
        "  headers, else 408 and the connection is closed.",
      ].join("\n"),
    );
    expect(run.stdout).toContain(`closed. The headers have ${HEADERS_TIMEOUT_MS / 1000} s to arrive, else the same.\n`);
  });
});
