/**
 * What the model client's own HTTP transport (node-http-fetch.ts) must carry as `fetch` did: compressed
 * replies, kept-alive connections, redirects (one request per hop) and HTTPS, all through the real SDK and a real server.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../../src/scripted-server/scripted-server.js";
import type { ContentCoding } from "../../../src/scripted-server/reply-encoding.js";
import { cliEnv, spawnCli, tempDir, writeFixtureSchemas } from "../../cli/support.js";
import { API_KEY, requestTurn } from "./harness.js";

const tlsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/tls");
const tls = { key: readFileSync(path.join(tlsDir, "key.pem"), "utf8"), cert: readFileSync(path.join(tlsDir, "cert.pem"), "utf8") };

const TOOL_CALL = { toolCalls: [{ id: "call_1", name: "add", arguments: '{"a":1,"b":2}' }] };

async function withServer<T>(options: Partial<Parameters<typeof startScriptedServer>[0]>, use: (server: ScriptedServer) => Promise<T>): Promise<T> {
  const server = await startScriptedServer({ script: [], apiKey: API_KEY, ...options });
  try {
    return await use(server);
  } finally {
    await server.close();
  }
}

describe.each([true, false])("stream %s", (stream) => {
  it.each<ContentCoding>(["gzip", "br"])("asks for %s and decodes a reply sent in it", async (coding) => {
    await withServer({ compression: coding }, async (server) => {
      const call = await requestTurn(server, [TOOL_CALL], stream);
      expect(server.requests[0]?.headers["accept-encoding"]).toBe("gzip, br");
      expect(call.turn?.message).toMatchObject({ tool_calls: [{ id: "call_1", type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }] });
      const answer = await requestTurn(server, [{ content: "três, 3 ✓" }], stream);
      expect(answer.turn?.message.content).toBe("três, 3 ✓");
      expect(answer.retries).toEqual([]);
    });
  });

  it.each([
    ["deflate", (text: string) => deflateSync(text)],
    ["gzip, br", (text: string) => brotliCompressSync(gzipSync(text))],
    ["deflate, gzip", (text: string) => gzipSync(deflateSync(text))],
  ])("decodes a reply a server sends in %s unasked", async (codings, encode) => {
    await withServer({}, async (server) => {
      const encoding = await encodingServer(server.baseURL, codings, encode);
      try {
        const run = await requestTurn(server, [{ content: "decoded, layer by layer" }], stream, { options: { baseURL: encoding.baseURL } });
        expect(run.turn?.message.content).toBe("decoded, layer by layer");
        expect(run.retries).toEqual([]);
      } finally {
        encoding.server.close();
        encoding.server.closeAllConnections();
      }
    });
  });

  it("sends the SDK's requests itself, never through the global fetch", async () => {
    const spy = vi.spyOn(globalThis, "fetch");
    try {
      await withServer({}, async (server) => {
        const run = await requestTurn(server, [TOOL_CALL], stream);
        expect(run.turn?.message).toMatchObject({ tool_calls: [{ id: "call_1" }] });
      });
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it("sends consecutive requests over one kept-alive connection", async () => {
    await withServer({}, async (server) => {
      for (let i = 0; i < 5; i += 1) await requestTurn(server, [{ content: `answer ${i}` }], stream);
      expect(server.requests.map((request) => request.connection)).toEqual(Array(5).fill(server.requests[0]?.connection));
    });
  });

  it.each([307, 308])("follows a %i redirect to another origin, the request sent again whole but without the key", async (status) => {
    await withServer({ apiKey: undefined }, async (server) => {
      const redirect = await redirectingServer(status, server.baseURL);
      try {
        const run = await requestTurn(server, [{ content: "redirected fine" }], stream, { options: { baseURL: redirect.baseURL } });
        expect(run.turn?.message.content).toBe("redirected fine");
        expect(server.requests).toHaveLength(1);
        expect(server.requests[0]?.headers.authorization).toBeUndefined();
        expect(server.requests[0]?.body?.messages).toEqual([
          { role: "system", content: "sys" },
          { role: "user", content: "add 1 and 2" },
        ]);
      } finally {
        redirect.server.close();
        redirect.server.closeAllConnections();
      }
    });
  });

  it.each([301, 302, 303, 307, 308])("a %i redirect costs one request at each server per attempt", async (status) => {
    await withServer({ apiKey: undefined }, async (server) => {
      const redirect = await redirectingServer(status, server.baseURL);
      try {
        const run = await requestTurn(server, [{ content: "once" }], stream, { options: { baseURL: redirect.baseURL } });
        expect(redirect.hits).toEqual(["POST /v1/chat/completions"]);
        // 301, 302 and 303 turn a POST into a GET, as fetch does: the API refuses that, which is the endpoint's to fix.
        expect(server.requests.map((request) => request.method)).toEqual([status >= 307 ? "POST" : "GET"]);
        if (status >= 307) expect(run.turn?.message.content).toBe("once");
      } finally {
        redirect.server.close();
        redirect.server.closeAllConnections();
      }
    });
  });

  it("a redirect to a URL with credentials in it is refused, saying so without the credentials", async () => {
    await withServer({ apiKey: undefined }, async (server) => {
      const target = server.baseURL.replace("http://", "http://user:hunter2-pass@");
      const redirect = await redirectingServer(307, target);
      try {
        const run = await requestTurn(server, [{ content: "never" }], stream, { options: { baseURL: redirect.baseURL, maxRetries: 0 } });
        expect(server.requests).toHaveLength(0);
        expect(redirect.hits).toHaveLength(1);
        expect(run.error?.kind).toBe("connection");
        expect(run.error?.message).toBe(
          `could not reach ${redirect.baseURL} because it redirected to ${server.baseURL}/chat/completions, a URL with credentials in it, which is not followed`,
        );
        expect(run.error?.hint).toBe(`Set OPENAI_BASE_URL to the API root at ${new URL(server.baseURL).origin} itself if that is the endpoint meant (a key goes in OPENAI_API_KEY, not in a URL).`);
        expect(JSON.stringify(run)).not.toContain("hunter2-pass");
      } finally {
        redirect.server.close();
        redirect.server.closeAllConnections();
      }
    });
  });

  it("an endpoint whose certificate is not trusted: a connection error that names the reason", async () => {
    await withServer({ tls }, async (server) => {
      const run = await requestTurn(server, [{ content: "never" }], stream, { options: { maxRetries: 0 } });
      expect(server.requests).toHaveLength(0);
      expect(run.error?.kind).toBe("connection");
      expect(run.error?.message).toBe(`could not connect to ${server.baseURL}: its TLS certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)`);
      expect(run.error?.hint).toBe("If the endpoint's certificate is signed by your own CA, point NODE_EXTRA_CA_CERTS at that CA's PEM file.");
    });
  });
});

it("decodes a compressed stream however its events are split, whatever the content", async () => {
  await withServer({ compression: "gzip" }, async (server) => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 7 }), async (content, chunkSize) => {
        const run = await requestTurn(server, [{ content, stream: { chunkSize } }], true);
        expect(run.turn?.message.content).toBe(content);
      }),
      { numRuns: 40 },
    );
  });
});

it("closes the connection of a reply the SDK retries at once, rather than leaving it open (and the process alive) until the server drops it", async () => {
  const connections: Socket[] = [];
  const server = createServer((req, res) => {
    req.resume();
    if (connections.length === 1 && req.socket === connections[0]) {
      res.writeHead(503, { "content-type": "application/json", "retry-after-ms": "1" });
      res.end(JSON.stringify({ error: { message: "busy" } }));
      return;
    }
    const message = { role: "assistant", content: "after a retry" };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message, finish_reason: "stop" }] }));
  });
  // As long-lived as nginx's 75 s: only the client can close the connection within the test.
  server.keepAliveTimeout = 75_000;
  const closes: Array<Promise<unknown>> = [];
  server.on("connection", (socket: Socket) => {
    connections.push(socket);
    closes.push(once(socket, "close"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    const pretend = { baseURL, requests: [], setScript: () => undefined } as unknown as ScriptedServer;
    const run = await requestTurn(pretend, [], false, { options: { baseURL } });
    expect(run.turn?.message.content).toBe("after a retry");
    expect(run.retries).toMatchObject([{ by: "sdk", kind: "http", status: 503 }]);
    expect(connections).toHaveLength(2);
    const closedSoon = await Promise.race([closes[0]?.then(() => true), delay(5_000).then(() => false)]);
    expect(closedSoon).toBe(true);
    expect(connections[1]?.destroyed).toBe(false);
  } finally {
    server.close();
    server.closeAllConnections();
  }
});

describe("HTTPS", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer({ script: [], tls });
  });
  afterAll(() => server.close());

  it("the agent reaches an endpoint whose certificate the process trusts (NODE_EXTRA_CA_CERTS)", async () => {
    server.setScript([{ content: "over TLS" }]);
    const dir = tempDir();
    const run = await spawnCli(["--schemas", writeFixtureSchemas(dir), "hello"], cliEnv(server.baseURL, { NODE_EXTRA_CA_CERTS: path.join(tlsDir, "cert.pem") })).done;
    expect(run.stdout).toBe("over TLS\n");
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(1);
  });
});

/** A gateway in front of `target` that re-encodes every reply in `codings` (as listed in `content-encoding`). */
async function encodingServer(target: string, codings: string, encode: (text: string) => Buffer): Promise<{ server: Server; baseURL: string }> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      void fetch(`${target}${(req.url ?? "").replace(/^\/v1/, "")}`, { method: "POST", headers: { authorization: req.headers.authorization ?? "", "content-type": "application/json" }, body: Buffer.concat(parts) })
        .then(async (reply) => {
          res.writeHead(reply.status, { "content-type": reply.headers.get("content-type") ?? "", "content-encoding": codings });
          res.end(encode(await reply.text()));
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

async function redirectingServer(status: number, target: string): Promise<{ server: Server; baseURL: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(status, { location: `${target}${(req.url ?? "").replace(/^\/v1/, "")}` });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, hits };
}
