/**
 * The agent behind a proxy: HTTP_PROXY / HTTPS_PROXY / NO_PROXY as a user sets them, against a real
 * forwarding and CONNECT proxy (the `proxy` package) on 127.0.0.1, through the real CLI as a process.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createProxy, type ProxyServer } from "proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, projectRoot, spawnCli, tempDir, writeFixtureSchemas, SENTINEL_KEY, type CliRun } from "./support.js";

const CA = path.join(projectRoot, "test/fixtures/tls/cert.pem");
const USER = "alice";
const PASSWORD = "pr0xy-s3cret-Pa55";
const CREDENTIALS_BASE64 = Buffer.from(`${USER}:${PASSWORD}`).toString("base64");

interface RunningProxy {
  url: string;
  /** What the proxy was asked: `CONNECT host:port` or `METHOD absolute-url`, with the credentials it got. */
  seen: Array<{ request: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

async function startProxy(options: { password?: string } = {}): Promise<RunningProxy> {
  const server: ProxyServer = createProxy(createServer());
  const seen: RunningProxy["seen"] = [];
  const note = (request: IncomingMessage) => seen.push({ request: `${request.method} ${request.url}`, authorization: request.headers["proxy-authorization"] });
  server.prependListener("request", note);
  server.prependListener("connect", note);
  if (options.password !== undefined) {
    const expected = `Basic ${Buffer.from(`${USER}:${options.password}`).toString("base64")}`;
    server.authenticate = (request) => request.headers["proxy-authorization"] === expected;
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: a proxy that cannot be reached. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const outputs: string[] = [];
let schemas: string;

async function agent(baseURL: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  const run = await spawnCli(["--schemas", schemas, "hello"], cliEnv(baseURL, env)).done;
  outputs.push(run.stdout, run.stderr);
  return run;
}

function lastLine(text: string): string {
  return text.trimEnd().split("\n").at(-1) ?? "";
}

beforeAll(() => {
  schemas = writeFixtureSchemas(tempDir());
});

afterAll(() => {
  const all = outputs.join("\n");
  for (const secret of [SENTINEL_KEY, SENTINEL_KEY.slice(-8), PASSWORD, CREDENTIALS_BASE64]) expect(all).not.toContain(secret);
});

describe("over plain HTTP", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer({ script: [] });
  });
  afterAll(() => server.close());

  it("HTTP_PROXY: the request is forwarded by the proxy, whole, and the answer comes back", async () => {
    const proxy = await startProxy();
    try {
      server.setScript([{ content: "via the proxy" }]);
      const run = await agent(server.baseURL, { HTTP_PROXY: proxy.url });
      expect(run.stdout).toBe("via the proxy\n");
      expect(run.code).toBe(0);
      expect(proxy.seen.map((entry) => entry.request)).toEqual([`POST ${server.baseURL}/chat/completions`]);
      expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SENTINEL_KEY}`);
    } finally {
      await proxy.close();
    }
  });

  it("http_proxy wins over HTTP_PROXY when both are set", async () => {
    const proxy = await startProxy();
    try {
      server.setScript([{ content: "lower case first" }]);
      const run = await agent(server.baseURL, { http_proxy: proxy.url, HTTP_PROXY: `http://127.0.0.1:${await deadPort()}` });
      expect(run.stdout).toBe("lower case first\n");
      expect(proxy.seen).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it("NO_PROXY: a listed host is reached directly, the proxy never asked", async () => {
    const proxy = await startProxy();
    try {
      server.setScript([{ content: "direct" }]);
      const run = await agent(server.baseURL, { HTTP_PROXY: proxy.url, NO_PROXY: "localhost,127.0.0.1" });
      expect(run.stdout).toBe("direct\n");
      expect(run.code).toBe(0);
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it("an authenticating proxy: the user and password of the proxy URL are sent as Proxy-Authorization, and never reach the endpoint", async () => {
    const proxy = await startProxy({ password: PASSWORD });
    try {
      server.setScript([{ content: "authenticated" }]);
      const withoutCredentials = await agent(server.baseURL, { HTTP_PROXY: proxy.url });
      expect(withoutCredentials.code).toBe(3);
      expect(lastLine(withoutCredentials.stderr)).toBe(
        `hint: The proxy ${proxy.url} (HTTP_PROXY) asks for credentials: set the user and password in HTTP_PROXY (http://user:password@host:port, percent-encoded).`,
      );
      const run = await agent(server.baseURL, { HTTP_PROXY: proxy.url.replace("http://", `http://${USER}:${PASSWORD}@`) });
      expect(run.stdout).toBe("authenticated\n");
      expect(run.code).toBe(0);
      expect(proxy.seen.at(-1)?.authorization).toBe(`Basic ${CREDENTIALS_BASE64}`);
      expect(server.requests.at(-1)?.headers["proxy-authorization"]).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it("a proxy that refuses the credentials (407): exit 3 after the retries, the last line naming the proxy without its password", async () => {
    const proxy = await startProxy({ password: "another-password" });
    try {
      const run = await agent(server.baseURL, { HTTP_PROXY: proxy.url.replace("http://", `http://${USER}:${PASSWORD}@`) });
      expect(run.code).toBe(3);
      expect(proxy.seen.length).toBeGreaterThan(1);
      expect(run.stderr).toContain(`API error: could not reach ${server.baseURL} through the proxy ${proxy.url} (HTTP_PROXY): the proxy refused the credentials (407 Proxy Authentication Required) (after ${proxy.seen.length} attempts)`);
      expect(lastLine(run.stderr)).toBe(
        `hint: The proxy ${proxy.url} (HTTP_PROXY) refused the credentials: set the user and password in HTTP_PROXY (http://user:password@host:port, percent-encoded).`,
      );
    } finally {
      await proxy.close();
    }
  });

  it("a proxy that cannot be reached: exit 3 after the retries, the last line naming it and saying so", async () => {
    const proxyURL = `http://127.0.0.1:${await deadPort()}`;
    const run = await agent(server.baseURL, { HTTP_PROXY: proxyURL.replace("http://", `http://${USER}:${PASSWORD}@`) });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`API error: could not reach ${server.baseURL} through the proxy ${proxyURL} (HTTP_PROXY): the proxy cannot be reached (connection refused) (after 4 attempts)`);
    expect(lastLine(run.stderr)).toBe(
      `hint: The proxy ${proxyURL} (HTTP_PROXY) cannot be reached (connection refused): check that it is running and that HTTP_PROXY names it, or add the endpoint's host to NO_PROXY.`,
    );
  });
});

describe("over HTTPS", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    const { readFileSync } = await import("node:fs");
    server = await startScriptedServer({ script: [], tls: { key: readFileSync(path.join(projectRoot, "test/fixtures/tls/key.pem"), "utf8"), cert: readFileSync(CA, "utf8") } });
  });
  afterAll(() => server.close());

  it("HTTPS_PROXY: a CONNECT tunnel, through an authenticating proxy, to an endpoint whose certificate comes from a private CA (NODE_EXTRA_CA_CERTS)", async () => {
    const proxy = await startProxy({ password: PASSWORD });
    try {
      server.setScript([{ content: "tunnelled" }]);
      const run = await agent(server.baseURL, { HTTPS_PROXY: proxy.url.replace("http://", `http://${USER}:${PASSWORD}@`), NODE_EXTRA_CA_CERTS: CA });
      expect(run.stdout).toBe("tunnelled\n");
      expect(run.code).toBe(0);
      expect(proxy.seen).toEqual([{ request: `CONNECT ${new URL(server.baseURL).host}`, authorization: `Basic ${CREDENTIALS_BASE64}` }]);
      expect(server.requests).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it("a proxy that refuses the tunnel's credentials: exit 3, the last line naming the proxy without its password", async () => {
    const proxy = await startProxy({ password: "another-password" });
    try {
      const run = await agent(server.baseURL, { https_proxy: proxy.url.replace("http://", `http://${USER}:${PASSWORD}@`), NODE_EXTRA_CA_CERTS: CA });
      expect(run.code).toBe(3);
      expect(lastLine(run.stderr)).toBe(
        `hint: The proxy ${proxy.url} (https_proxy) refused the credentials: set the user and password in https_proxy (http://user:password@host:port, percent-encoded).`,
      );
    } finally {
      await proxy.close();
    }
  });
});

describe("a proxy variable that is not a proxy URL", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer({ script: [] });
  });
  afterAll(() => server.close());

  /** The whole stderr of a run refused at setup: the one error line, then the usage pointer. */
  const refused = (line: string) => `error: ${line}\nRun npm run agent -- --help for usage.\n`;

  it("HTTPS_PROXY=127.0.0.1:9 (no scheme): exit 2 before any request, one line naming it and the form expected, no retry", async () => {
    server.setScript([{ content: "never asked" }]);
    const run = await agent(server.baseURL, { HTTPS_PROXY: "127.0.0.1:9" });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      refused('HTTPS_PROXY is "127.0.0.1:9", which has no scheme (http:// is not assumed): expected a proxy URL such as http://host:port (http://user:password@host:port for one that asks for credentials). Fix HTTPS_PROXY or unset it.'),
    );
    expect(run.stdout).toBe("");
    expect(server.requests).toEqual([]);
  });

  it("http_proxy=proxy.corp:8080 with an http endpoint (a host name, which a URL parser takes for a scheme): refused the same way", async () => {
    const run = await agent(server.baseURL, { http_proxy: "proxy.corp:8080" });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      refused('http_proxy is "proxy.corp:8080", which has no scheme (http:// is not assumed): expected a proxy URL such as http://host:port (http://user:password@host:port for one that asks for credentials). Fix http_proxy or unset it.'),
    );
    expect(server.requests).toEqual([]);
  });

  it("credentials in the value are shown as ***, with or without a scheme", async () => {
    const withPath = await agent(server.baseURL, { HTTP_PROXY: `http://${USER}:${PASSWORD}@127.0.0.1:9/proxy` });
    expect(withPath.code).toBe(2);
    expect(withPath.stderr.split("\n")[0]).toBe(
      'error: HTTP_PROXY is "http://***@127.0.0.1:9/proxy", which has a path, query or fragment after the host (a proxy URL has none): expected a proxy URL such as http://host:port (http://user:password@host:port for one that asks for credentials). Fix HTTP_PROXY or unset it.',
    );
    const schemeless = await agent(server.baseURL, { HTTPS_PROXY: `${USER}:${PASSWORD}@proxy.corp:8080` });
    expect(schemeless.code).toBe(2);
    expect(schemeless.stderr.split("\n")[0]).toBe(
      'error: HTTPS_PROXY is "***@proxy.corp:8080", which has no scheme (http:// is not assumed): expected a proxy URL such as http://host:port (http://user:password@host:port for one that asks for credentials). Fix HTTPS_PROXY or unset it.',
    );
    for (const run of [withPath, schemeless]) expect(`${run.stdout}${run.stderr}`).not.toContain(USER);
    expect(server.requests).toEqual([]);
  });

  it("a scheme undici does not speak (socks4://) is refused, naming the ones it does", async () => {
    const run = await agent(server.baseURL, { HTTP_PROXY: "socks4://127.0.0.1:1080" });
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe(
      'error: HTTP_PROXY is "socks4://127.0.0.1:1080", whose scheme socks4:// is not one sigloop speaks (http://, https://, socks5://): expected a proxy URL such as http://host:port (http://user:password@host:port for one that asks for credentials). Fix HTTP_PROXY or unset it.',
    );
    expect(server.requests).toEqual([]);
  });

  it("a malformed variable that is not read (the lower-case one is set), or an empty one, is no error", async () => {
    const proxy = await startProxy();
    try {
      server.setScript([{ content: "through the lower-case one" }, { content: "no proxy" }]);
      const shadowed = await agent(server.baseURL, { http_proxy: proxy.url, HTTP_PROXY: "127.0.0.1:9" });
      expect(shadowed.stdout).toBe("through the lower-case one\n");
      expect(shadowed.code).toBe(0);
      expect(proxy.seen).toHaveLength(1);
      const empty = await agent(server.baseURL, { HTTP_PROXY: "", HTTPS_PROXY: "" });
      expect(empty.stdout).toBe("no proxy\n");
      expect(empty.code).toBe(0);
      expect(proxy.seen).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});
