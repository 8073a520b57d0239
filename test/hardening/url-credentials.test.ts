/**
 * A password in `OPENAI_BASE_URL` is never printed by the real agent CLI: not in the refusal of a URL
 * that is not http(s), not in the retry and error lines of an endpoint that redirects or fails, not in
 * the transcript; nor one in its query (`?api-key=…`). (How a redirect is followed is the transport's
 * business, tested with it.)
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { keyMask } from "../../src/runtime/model/key-mask.js";
import { maskURLCredentials } from "../../src/runtime/model/url-credentials.js";
import { cliEnv, spawnCli, tempDir, writeFixtureSchemas } from "../cli/support.js";

const PASSWORD = "pa%24%24w0rd-l0ng";
const DECODED = "pa$$w0rd-l0ng";
const scripted = await startScriptedServer({ script: [] });
const servers: Server[] = [];
afterAll(async () => {
  await scripted.close();
  for (const server of servers) server.close();
});

/** A server that answers every request with `status` and a Location back to itself, with credentials in it. */
async function redirecting(status: number): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    const port = (server.address() as AddressInfo).port;
    res.writeHead(status, { location: `http://user:${PASSWORD}@127.0.0.1:${port}/v1/chat/completions` });
    res.end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://user:${PASSWORD}@127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

function expectNoPassword(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(DECODED);
    expect(text).not.toContain(`user:${PASSWORD}`);
  }
}

describe("credentials in OPENAI_BASE_URL are never printed", () => {
  it("not in the refusal of a URL that is not http(s) (exit 2)", async () => {
    const run = await spawnCli(["hi"], { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `ftp://user:${PASSWORD}@example.invalid/v1` }).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('got "ftp://***@example.invalid/v1"');
    expectNoPassword(run.stdout, run.stderr);
  });

  it("not in the retry and error lines of an endpoint that redirects with them, nor in the transcript", async () => {
    const dir = tempDir();
    const schemas = writeFixtureSchemas(dir);
    const transcript = path.join(dir, "t.jsonl");
    const baseURL = await redirecting(307);
    const run = await spawnCli(["--schemas", schemas, "--no-stream", "--request-timeout", "2000", "--transcript", transcript, "hi"], cliEnv(baseURL), dir).done;
    expect(run.code).not.toBe(0);
    expect(run.stderr).not.toBe("");
    expectNoPassword(run.stdout, run.stderr, readFileSync(transcript, "utf8"));
  }, 60_000);

  it("not when the endpoint with credentials answers", async () => {
    const dir = tempDir();
    const schemas = writeFixtureSchemas(dir);
    scripted.setScript([{ content: `the URL was http://user:${PASSWORD}@host` }]);
    const withCredentials = scripted.baseURL.replace("http://", `http://user:${PASSWORD}@`);
    const run = await spawnCli(["--schemas", schemas, "--no-stream", "hi"], cliEnv(withCredentials), dir).done;
    expectNoPassword(run.stdout, run.stderr);
  });
});

describe("a credential in OPENAI_BASE_URL's query", () => {
  const mask = maskURLCredentials(keyMask(""), "https://gateway.example/v1?api-version=2024-10-21&api-key=Zq81Lm0PaXcV72NbTy5Ks3Rd&sig=a%2Fb%2Bc%3D1234");

  it("is masked wherever it appears, as written and decoded; other parameters and short values are not", () => {
    expect(mask.scrub("bad request to https://gateway.example/v1?api-key=Zq81Lm0PaXcV72NbTy5Ks3Rd (key Zq81Lm0PaXcV72NbTy5Ks3Rd)")).toBe(
      "bad request to https://gateway.example/v1?api-key=*** (key ***)",
    );
    expect(mask.scrub("signed a%2Fb%2Bc%3D1234 = a/b+c=1234")).toBe("signed *** = ***");
    expect(mask.scrub("api-version=2024-10-21")).toBe("api-version=2024-10-21");
  });

  it("is where `runs` says a mask goes, as scrub puts it", () => {
    const text = "x Zq81Lm0PaXcV72NbTy5Ks3Rd y";
    expect(mask.runs(text)).toEqual([[2, 26]]);
  });
});
