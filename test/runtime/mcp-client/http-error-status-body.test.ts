/**
 * An http MCP server's error status (4xx/5xx) with a huge or endless body: the agent reads only the
 * first 4096 bytes of it (the SDK puts the body in its error message), marks the cut and closes the
 * connection, so the call fails in bounded time and memory with the body's start in its message.
 * Against a raw node:http server on 127.0.0.1 through the library API, and the fetch wrapper alone.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { boundedFetch, ERROR_BODY_BYTES, ERROR_BODY_CUT } from "../../../src/runtime/mcp-client/bounded-fetch.js";
import { callTool, flood, flooded, startRawHttpMcpServer, type RawHttpMcpServer } from "../../support/raw-http-mcp-server.js";

let server: RawHttpMcpServer | undefined;
let closed: Promise<void> | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
  closed = undefined;
  flooded.reset();
});

describe("a call answered with HTTP 500 and an endless body", () => {
  it("fails with the body's start in its message, soon, holding little, and the connection is closed", async () => {
    server = await startRawHttpMcpServer({
      tools: ["broken"],
      onCall(response) {
        closed = new Promise((resolve) => response.on("close", () => resolve()));
        response.writeHead(500, { "content-type": "text/plain" });
        response.write("Internal error: database unreachable\n");
        flood(response, "x".repeat(64 * 1024));
      },
    });
    const servers = await server.connectAgent();
    const before = process.memoryUsage();
    const startedAt = Date.now();
    const outcome = await callTool(servers, "h__broken");
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(outcome.status).toBe("tool_error");
    expect(outcome.content.startsWith('The MCP server "h" refused the call to h__broken: Streamable HTTP error: Error POSTing to endpoint: Internal error: database unreachable\nxxxx')).toBe(true);
    const after = process.memoryUsage();
    expect(after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers).toBeLessThan(64 * 1024 * 1024);
    expect(await Promise.race([closed!.then(() => true), sleep(2_000).then(() => false)])).toBe(true);
    // Read no further than socket buffers hold: nowhere near what an endless body brings in 3 s.
    await sleep(200);
    expect(flooded.bytes).toBeLessThan(32 * 1024 * 1024);
  });
});

describe("a call answered with HTTP 500 and a short body the server never ends", () => {
  it("gets its time-limit result, and the server sees each response closed soon after: no connection is held", async () => {
    const closings: Promise<void>[] = [];
    server = await startRawHttpMcpServer({
      tools: ["stuck"],
      onCall(response, _id, _name) {
        closings.push(new Promise((resolve) => response.on("close", () => resolve())));
        // Less than the 4096 bytes the agent reads, and a length promising more: the body never ends.
        response.writeHead(500, { "content-type": "text/plain", "content-length": "100000" });
        response.write("oops");
      },
    });
    const servers = await server.connectAgent({ callTimeoutMs: 300 });
    for (let call = 0; call < 3; call++) {
      const outcome = await callTool(servers, "h__stuck");
      expect(outcome.status).toBe("timeout");
    }
    const allClosed = Promise.all(closings).then(() => true);
    expect(await Promise.race([allClosed, sleep(2_000).then(() => false)])).toBe(true);
    expect(closings).toHaveLength(3);
  });
});

/** What the SDK reads (`text()`) of an error status's body of `chunks`, endless (`z`s after them) unless `ends`; whether the body was cancelled. */
async function errorText(chunks: readonly (string | Uint8Array)[], status = 500, ends = false): Promise<{ text: string; cancelled: boolean }> {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[0];
      if (next === undefined) return ends ? controller.close() : controller.enqueue(Buffer.from("z".repeat(1024)));
      chunks = chunks.slice(1);
      controller.enqueue(typeof next === "string" ? Buffer.from(next) : next);
    },
    cancel() {
      cancelled = true;
    },
  });
  const base = () => Promise.resolve(new Response(body, { status, headers: { "content-type": "text/html" } }));
  const response = await boundedFetch(1000, base)("http://127.0.0.1/mcp", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} }) });
  expect(response.status).toBe(status);
  return { text: await response.text(), cancelled };
}

describe("the fetch wrapper, for an error status's body", () => {
  it("passes a body of up to 4096 bytes whole", async () => {
    expect(await errorText(["a".repeat(ERROR_BODY_BYTES - 10), "b".repeat(10)], 500, true)).toEqual({ text: `${"a".repeat(ERROR_BODY_BYTES - 10)}${"b".repeat(10)}`, cancelled: false });
  });

  it("keeps the first 4096 bytes of a longer one, marks the cut and cancels the rest", async () => {
    expect(await errorText(["a".repeat(ERROR_BODY_BYTES), "b"], 404)).toEqual({ text: `${"a".repeat(ERROR_BODY_BYTES)}${ERROR_BODY_CUT}`, cancelled: true });
    expect(ERROR_BODY_CUT).toBe("… [cut: sigloop reads the first 4096 bytes of an error answer]");
  });

  it("cuts where a character starts, never inside one", async () => {
    // 4095 bytes, then a 3-byte character across the limit: it is left out whole.
    expect(await errorText(["a".repeat(ERROR_BODY_BYTES - 1), "✓ and more"], 502)).toEqual({ text: `${"a".repeat(ERROR_BODY_BYTES - 1)}${ERROR_BODY_CUT}`, cancelled: true });
  });
});
