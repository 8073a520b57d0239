/**
 * `--stateless`: two server processes behind a small round-robin proxy, as behind a load balancer, and
 * every request is answered whichever replica gets it; no session, no GET stream, no DELETE, no
 * listChanged, and the session flags refused with it.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient, httpFixtureSchemas, INITIALIZE, logLines, post, refusedStart, startHttpServer, type HttpServerRun } from "./http-support.js";
import { resultText } from "./support.js";

let schemas: string;
let replicas: HttpServerRun[];
let proxy: Server;
let proxyUrl: string;

/** Sends each request to the next replica in turn, as a round-robin balancer does. */
function roundRobinProxy(targets: readonly string[]): Server {
  let next = 0;
  return createServer((req, res) => {
    const target = new URL(req.url ?? "/", targets[next++ % targets.length]);
    const upstream = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
}

beforeAll(async () => {
  schemas = httpFixtureSchemas();
  const args = ["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--stateless"];
  replicas = await Promise.all([startHttpServer(args), startHttpServer(args)]);
  proxy = roundRobinProxy(replicas.map((replica) => replica.url));
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  expect((await Promise.all(replicas.map((replica) => replica.stop()))).map((exit) => exit.code)).toEqual([143, 143]);
});

describe("stateless mode behind a round-robin balancer", () => {
  it("answers every request whichever replica gets it", async () => {
    const { client, transport } = await connectClient(proxyUrl);
    try {
      expect(transport.sessionId).toBeUndefined();
      expect(client.getServerCapabilities()?.tools).toEqual({});
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["add", "pause", "wait_for_abort"]);
      const sums = await Promise.all(Array.from({ length: 10 }, (_, index) => client.callTool({ name: "add", arguments: { a: index, b: 10 } })));
      expect(sums.map(resultText)).toEqual(Array.from({ length: 10 }, (_, index) => String(index + 10)));
      for (const replica of replicas) expect(logLines(replica).filter((line) => line.startsWith("http: POST tools/call add 200 ok")).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("answers GET and DELETE with 405, and never sends a session id", async () => {
    const [replica] = replicas;
    expect((await fetch(replica!.url, { headers: { accept: "text/event-stream" } })).status).toBe(405);
    const deleted = await fetch(replica!.url, { method: "DELETE" });
    expect([deleted.status, deleted.headers.get("allow")]).toEqual([405, "POST"]);
    const initialized = await post(replica!.url, INITIALIZE);
    expect(initialized.status).toBe(200);
    expect(initialized.headers.get("mcp-session-id")).toBeNull();
  });

  it("refuses the session flags with --stateless (exit 2)", async () => {
    const run = await refusedStart(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--stateless", "--max-sessions", "5"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("error: --max-sessions limits sessions, and --stateless keeps none: drop one of the two");
  });
});
