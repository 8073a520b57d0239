/**
 * The HTTP server's limits and its end: oversized bodies (declared and chunked) get 413 before the
 * connection closes, calls beyond the running and waiting bound get 503, a call's timeout starts when it
 * runs, and SIGTERM lets calls finish within --grace, answers the rest as interrupted and exits 143.
 */
import { request } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, httpFixtureSchemas, INITIALIZE, post, startHttpServer, type HttpServerRun } from "./http-support.js";
import { resultText, until } from "./support.js";

let schemas: string;
beforeAll(() => {
  schemas = httpFixtureSchemas();
});

/** Sends a chunked body 1000 bytes at a time until the server answers; resolves with the status and how much was sent. */
function chunkedUntilAnswered(url: string, sessionHeaders: Record<string, string>): Promise<{ status: number; body: string; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "transfer-encoding": "chunked", ...sessionHeaders } }, (res) => {
      answered = true;
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, sent }));
    });
    req.on("error", (error) => (answered ? undefined : reject(error)));
    const pump = (): void => {
      if (answered || sent > 1_000_000) return void req.end();
      sent += 1000;
      req.write(`"${"x".repeat(998)}"`.slice(0, 1000));
      setTimeout(pump, 2);
    };
    req.write('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add","arguments":{"a":');
    pump();
  });
}

describe("limits", () => {
  let server: HttpServerRun;
  beforeAll(async () => {
    server = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--max-body-bytes", "4000", "--max-concurrent-calls", "1", "--tool-timeout", "1500"]);
  });
  afterAll(async () => {
    await server.stop();
  });

  it("answers a body over --max-body-bytes with 413, declared or chunked, and keeps serving", async () => {
    const declared = await post(server.url, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { pad: "x".repeat(5000) } }));
    expect(declared.status).toBe(413);
    expect(declared.json).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: "Payload Too Large: a message may have at most 4000 bytes (--max-body-bytes)." }, id: null });
    const { client, transport } = await connectClient(server.url);
    try {
      const chunked = await chunkedUntilAnswered(server.url, { "mcp-session-id": transport.sessionId ?? "" });
      expect(chunked.status).toBe(413);
      expect(chunked.sent).toBeLessThan(1_000_000);
      await expect(client.callTool({ name: "add", arguments: { a: 1, b: 2, pad: "x".repeat(5000) } })).rejects.toMatchObject({ code: 413, message: expect.stringContaining("Payload Too Large") });
      expect(resultText(await client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))).toBe("3");
    } finally {
      await client.close();
    }
  });

  it("starts a call's --tool-timeout when it runs, not when it waits", async () => {
    const { client } = await connectClient(server.url);
    try {
      // One runs at a time: the second waits 1000 ms, then runs 1000 ms, inside its own 1500 ms.
      const results = await Promise.all([client.callTool({ name: "pause", arguments: { ms: 1000 } }), client.callTool({ name: "pause", arguments: { ms: 1000 } })]);
      expect(results.map(resultText)).toEqual(["paused 1000 ms", "paused 1000 ms"]);
    } finally {
      await client.close();
    }
  });

  it("answers a call beyond the running and waiting ones with 503 and Retry-After; cancelled waiting calls leave the queue", async () => {
    const { client, transport } = await connectClient(server.url);
    const controller = new AbortController();
    try {
      // One runs, four (4 x --max-concurrent-calls) wait.
      const calls = Array.from({ length: 5 }, () => client.callTool({ name: "wait_for_abort", arguments: {} }, undefined, { signal: controller.signal, timeout: 20_000 }).catch((error: unknown) => error));
      await until(() => server.stderr().includes("wait_for_abort: started"));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const call = JSON.stringify({ jsonrpc: "2.0", id: 77, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 1 } } });
      const busy = await post(server.url, call, { "mcp-session-id": transport.sessionId ?? "", "mcp-protocol-version": "2025-11-25" });
      expect(busy.status).toBe(503);
      expect(busy.headers.get("retry-after")).toBe("1");
      expect(busy.json).toMatchObject({ error: { code: -32000, message: expect.stringContaining("--max-concurrent-calls") }, id: 77 });
      controller.abort("done");
      await Promise.all(calls);
      await until(() => server.stderr().includes("wait_for_abort: signal aborted"));
      expect(resultText(await client.callTool({ name: "add", arguments: { a: 5, b: 5 } }))).toBe("10");
    } finally {
      await client.close();
    }
  });
});

describe("SIGTERM", () => {
  it("refuses new connections, lets a call finish within --grace, answers one beyond it as interrupted, and exits 143", async () => {
    const server = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--grace", "1500"]);
    const { client } = await connectClient(server.url);
    const quick = client.callTool({ name: "pause", arguments: { ms: 800 } });
    const slow = client.callTool({ name: "pause", arguments: { ms: 20_000 } });
    await until(() => server.stderr().split("pause: started").length === 3);
    const signalled = Date.now();
    server.child.kill("SIGTERM");
    await until(() => server.stderr().includes("mcp: SIGTERM"));
    const refused = await new Promise<string>((resolve) => {
      const req = request(new URL("/healthz", server.url), { agent: false }, (res) => resolve(String(res.statusCode)));
      req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      req.end();
    });
    expect(refused).toBe("ECONNREFUSED");
    expect(resultText(await quick)).toBe("paused 800 ms");
    const interrupted = await slow;
    expect(interrupted.isError).toBe(true);
    expect(resultText(interrupted)).toBe("The tool pause was interrupted before it finished; it has no result.");
    expect((await server.exit).code).toBe(143);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    await client.close();
  });

  it("exits 143 at once when nothing is in flight", async () => {
    const server = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0"]);
    expect((await post(server.url, INITIALIZE)).status).toBe(200);
    const signalled = Date.now();
    expect((await server.stop()).code).toBe(143);
    expect(Date.now() - signalled).toBeLessThan(5_000);
  });
});
