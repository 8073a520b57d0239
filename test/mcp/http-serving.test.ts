/**
 * `sigloop mcp --http` serving the tools over Streamable HTTP, seen through the SDK's own client and raw
 * requests against the real process: list and call, many sessions at once, sessions ended and expired,
 * bad requests answered while it keeps serving, reloads told to every session, one log line per request.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedSchemasText, writeFixtureSchemas } from "../cli/support.js";
import { connectClient, httpFixtureSchemas, httpFixtureTools, INITIALIZE, logLines, post, startHttpServer, type HttpServerRun } from "./http-support.js";
import { resultText, tempDir, until } from "./support.js";

let schemas: string;
let server: HttpServerRun;

beforeAll(async () => {
  schemas = httpFixtureSchemas();
  server = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "127.0.0.1:0"]);
});
afterAll(async () => {
  expect((await server.stop()).code).toBe(143);
});

/** Opens a session by hand; resolves with its id. */
async function rawSession(url: string): Promise<string> {
  const response = await post(url, INITIALIZE);
  expect(response.status).toBe(200);
  return response.headers.get("mcp-session-id") ?? "";
}

describe("serving over Streamable HTTP", () => {
  it("prints the bound address, lists the tools and runs calls through the executor", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*\/mcp$/);
    const { client, transport } = await connectClient(server.url);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["add", "pause", "wait_for_abort"]);
      expect(resultText(await client.callTool({ name: "add", arguments: { a: 987654321, b: 1 } }))).toBe("987654322");
      const wrong = await client.callTool({ name: "add", arguments: { a: "one" } });
      expect(wrong.isError).toBe(true);
      expect(resultText(wrong)).toContain("The arguments for add do not match its parameters, so it was not run:");
      const sessionId = transport.sessionId ?? "";
      expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      await until(() => logLines(server).some((line) => / tools\/call add 200 error /.test(line)));
      const lines = logLines(server);
      expect(lines.some((line) => /^http: POST tools\/call add 200 ok [0-9]+ms$/.test(line))).toBe(true);
      expect(lines.some((line) => /^http: POST initialize 200 ok [0-9]+ms$/.test(line))).toBe(true);
      expect(lines.some((line) => /^http: POST notifications\/initialized 202 - [0-9]+ms$/.test(line))).toBe(true);
      expect(server.stderr()).not.toContain(sessionId);
      expect(server.stderr()).not.toContain("987654321");
      expect(server.stderr()).not.toContain("one");
    } finally {
      await client.close();
    }
  });

  it("serves fifty sessions at once, each calling tools", async () => {
    const clients = await Promise.all(Array.from({ length: 50 }, () => connectClient(server.url)));
    try {
      const sums = await Promise.all(clients.map(async ({ client }, index) => [resultText(await client.callTool({ name: "add", arguments: { a: index, b: 1 } })), resultText(await client.callTool({ name: "add", arguments: { a: index, b: 2 } }))]));
      expect(sums).toEqual(Array.from({ length: 50 }, (_, index) => [String(index + 1), String(index + 2)]));
      expect(new Set(clients.map(({ transport }) => transport.sessionId)).size).toBe(50);
    } finally {
      await Promise.all(clients.map(({ client }) => client.close()));
    }
  });

  it("ends a session on DELETE: its id then gets 404, and a new session works", async () => {
    const { client, transport } = await connectClient(server.url);
    const ended = transport.sessionId ?? "";
    await transport.terminateSession();
    await client.close();
    const reused = await post(server.url, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }), { "mcp-session-id": ended });
    expect(reused.status).toBe(404);
    expect(reused.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 }, id: 2 });
    const unknown = await post(server.url, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }), { "mcp-session-id": "00000000-0000-4000-8000-000000000000" });
    expect(unknown.status).toBe(404);
    const again = await connectClient(server.url);
    expect(resultText(await again.client.callTool({ name: "add", arguments: { a: 2, b: 2 } }))).toBe("4");
    await again.client.close();
  });

  it("answers bad bodies, types and methods with the right status, and keeps serving", async () => {
    const session = await rawSession(server.url);
    const notJson = await post(server.url, "{ not json", { "mcp-session-id": session });
    expect(notJson.status).toBe(400);
    expect(notJson.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 }, id: null });
    const notRpc = await post(server.url, JSON.stringify({ id: 7, hello: "world" }), { "mcp-session-id": session });
    expect(notRpc.status).toBe(400);
    expect(notRpc.json).toMatchObject({ error: { code: -32600 }, id: 7 });
    const batch = await post(server.url, JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]), { "mcp-session-id": session });
    expect(batch.status).toBe(400);
    expect(batch.json).toMatchObject({ error: { code: -32600, message: expect.stringContaining("batch") } });
    expect((await post(server.url, INITIALIZE, { "content-type": "text/plain" })).status).toBe(415);
    expect((await post(server.url, INITIALIZE, { accept: "application/json" })).status).toBe(406);
    expect((await fetch(server.url, { method: "PUT" })).status).toBe(405);
    expect((await fetch(new URL("/other", server.url))).status).toBe(404);
    const noSession = await post(server.url, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }));
    expect(noSession.status).toBe(400);
    const health = await fetch(new URL("/healthz", server.url));
    expect([health.status, await health.text()]).toEqual([200, "ok"]);
    const listed = await post(server.url, JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }), { "mcp-session-id": session });
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('"name":"pause"');
  });
});

describe("reload over HTTP", () => {
  it("sends notifications/tools/list_changed to every open session when the schemas file is regenerated", async () => {
    const dir = tempDir();
    const toolsDir = path.join(dir, "tools");
    mkdirSync(toolsDir);
    cpSync(path.join(httpFixtureTools, "arithmetic.ts"), path.join(toolsDir, "arithmetic.ts"));
    const file = writeFixtureSchemas(dir, toolsDir);
    const reloading = await startHttpServer(["--workspace", dir, "--schemas", file, "--http", "0"]);
    try {
      // Two sessions, each with its GET stream open (fetch resolves once the stream's headers arrived).
      const streams = await Promise.all([0, 1].map(async () => {
        const session = await rawSession(reloading.url);
        await post(reloading.url, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), { "mcp-session-id": session });
        const response = await fetch(reloading.url, { headers: { accept: "text/event-stream", "mcp-session-id": session } });
        expect(response.status).toBe(200);
        return response.body!.pipeThrough(new TextDecoderStream()).getReader();
      }));
      const toolFile = path.join(toolsDir, "arithmetic.ts");
      writeFileSync(toolFile, `${readFileSync(toolFile, "utf8")}\n/** Double a number. @param n A number. */\nexport function double(n: number): number {\n  return n * 2;\n}\n`);
      writeFileSync(file, generatedSchemasText(toolsDir, file));
      for (const stream of streams) {
        let text = "";
        while (!text.includes("\n\n")) text += (await stream.read()).value ?? "";
        const data = /^event: message\ndata: (.*)\n\n$/.exec(text)?.[1];
        expect(JSON.parse(data ?? "null")).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
        await stream.cancel();
      }
      const { client } = await connectClient(reloading.url);
      expect(resultText(await client.callTool({ name: "double", arguments: { n: 21 } }))).toBe("42");
      await client.close();
    } finally {
      expect((await reloading.stop()).code).toBe(143);
    }
  });
});

describe("session limits", () => {
  it("refuses a session beyond --max-sessions with 503 and Retry-After, and ends idle sessions unless a call is in flight", async () => {
    const limited = await startHttpServer(["--workspace", path.dirname(schemas), "--schemas", schemas, "--http", "0", "--max-sessions", "2", "--session-idle", "400"]);
    try {
      const first = await rawSession(limited.url);
      await rawSession(limited.url);
      const third = await post(limited.url, INITIALIZE);
      expect(third.status).toBe(503);
      expect(third.headers.get("retry-after")).toBe("1");
      expect(third.json).toMatchObject({ error: { code: -32000, message: expect.stringContaining("--max-sessions") }, id: 1 });

      // Idle for longer than 400 ms: both end, and a new session fits.
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect((await post(limited.url, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }), { "mcp-session-id": first })).status).toBe(404);
      const { client } = await connectClient(limited.url);
      try {
        expect(resultText(await client.callTool({ name: "pause", arguments: { ms: 1000 } }))).toBe("paused 1000 ms");
        expect(resultText(await client.callTool({ name: "add", arguments: { a: 1, b: 1 } }))).toBe("2");
      } finally {
        await client.close();
      }
    } finally {
      await limited.stop();
    }
  });
});
