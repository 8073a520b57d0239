/**
 * An http MCP server's answer larger than sigloop reads of one message (10 MiB, as on stdio): the call
 * it answers gets the size and the limit, and the server stays usable. Against a real Streamable HTTP
 * server on 127.0.0.1 (raw node:http, answering as JSON or as an event stream) through the library API,
 * and, for how an event stream is cut, against the fetch wrapper alone.
 */
import type { ServerResponse } from "node:http";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { boundedFetch } from "../../../src/runtime/mcp-client/bounded-fetch.js";
import type { McpServers } from "../../../src/runtime/mcp-client/connect-mcp-servers.js";
import { callTool as call, startRawHttpMcpServer, type RawHttpMcpServer } from "../../support/raw-http-mcp-server.js";

const LIMIT = 10 * 1024 * 1024;

/** How the server answers a call to each tool: the text's size and whether it streams the answer as an event. */
const ANSWERS: Record<string, { textBytes: number; stream: boolean }> = {
  huge_json: { textBytes: 12 * 1024 * 1024, stream: false },
  huge_stream: { textBytes: 12 * 1024 * 1024, stream: true },
  vast_json: { textBytes: 256 * 1024 * 1024, stream: false },
  vast_stream: { textBytes: 256 * 1024 * 1024, stream: true },
  big_json: { textBytes: 9 * 1024 * 1024, stream: false },
  big_stream: { textBytes: 9 * 1024 * 1024, stream: true },
  small: { textBytes: 2, stream: true },
};

/** The bytes of each huge answer's body (JSON) or event (stream), as the server wrote them. */
const written: Record<string, number> = {};

/** Writes `text`, waiting whenever the socket is full, so a huge answer is never whole in memory. */
async function writeOut(response: ServerResponse, text: string): Promise<number> {
  if (!response.write(text)) await new Promise((resolve) => response.once("drain", resolve));
  return Buffer.byteLength(text);
}

async function answerCall(response: ServerResponse, id: unknown, name: string): Promise<void> {
  const { textBytes, stream } = ANSWERS[name]!;
  const head = `{"result":{"content":[{"type":"text","text":"`;
  const tail = `"}]},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  response.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" });
  let bytes = 0;
  if (stream) {
    // A small event first: the events around a skipped one pass as they are.
    await writeOut(response, `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}\n\n`);
    bytes += await writeOut(response, `event: message\ndata: `);
  }
  bytes += await writeOut(response, head);
  const piece = "a".repeat(1 << 16);
  for (let sent = 0; sent < textBytes; sent += piece.length) bytes += await writeOut(response, piece.slice(0, Math.min(piece.length, textBytes - sent)));
  bytes += await writeOut(response, tail);
  if (stream) bytes += await writeOut(response, "\n\n");
  written[name] = bytes;
  response.end();
}

let server: RawHttpMcpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function startHttp(): Promise<McpServers> {
  server = await startRawHttpMcpServer({ tools: Object.keys(ANSWERS), onCall: answerCall });
  return await server.connectAgent();
}

const tooLarge = (name: string, bytes: number) =>
  `The tool ${name} has no result: its MCP server "h" answered with ${bytes} bytes, more than the ${LIMIT} sigloop reads of one answer, so the answer was dropped. Ask it for less (a part, a page, a smaller file).`;

describe("an http server's answer larger than sigloop reads", () => {
  for (const kind of ["json", "stream"]) {
    it(`a 12 MiB answer (${kind === "json" ? "as JSON" : "as an event stream"}) fails that call with its size; the next call to the server works`, async () => {
      const servers = await startHttp();
      const outcome = await call(servers, `h__huge_${kind}`);
      expect(outcome).toEqual({ status: "tool_error", content: tooLarge(`h__huge_${kind}`, written[`huge_${kind}`]!) });
      expect(written[`huge_${kind}`]).toBeGreaterThan(12 * 1024 * 1024);
      expect(await call(servers, "h__small")).toEqual({ status: "ok", content: "aa" });
    });

    it(`a 256 MiB answer (${kind === "json" ? "as JSON" : "as an event stream"}) is skipped as it arrives: the agent's memory grows by far less than the answer`, async () => {
      const servers = await startHttp();
      const before = process.memoryUsage();
      let peak = 0;
      const sample = setInterval(() => {
        const now = process.memoryUsage();
        peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
      }, 5);
      const outcome = await call(servers, `h__vast_${kind}`).finally(() => clearInterval(sample));
      expect(outcome).toEqual({ status: "tool_error", content: tooLarge(`h__vast_${kind}`, written[`vast_${kind}`]!) });
      // The limit's 10 MiB held at most, plus what the collector has not taken back yet (3–85 MiB seen on
      // Node 22 and 24, whatever the answer's size); holding the answer would be more than its 256 MiB.
      expect(peak).toBeLessThan(192 * 1024 * 1024);
    });

    it(`a 9 MiB answer (${kind === "json" ? "as JSON" : "as an event stream"}) arrives whole`, async () => {
      const servers = await startHttp();
      const outcome = await call(servers, `h__big_${kind}`);
      expect(outcome.status).toBe("ok");
      expect(outcome.content.startsWith("aaaa")).toBe(true);
    });
  }
});

/** Reads what the wrapper hands on for a server's body of `chunks`, answering request 7. */
async function handedOn(contentType: string, chunks: readonly Uint8Array[], limit: number): Promise<string> {
  const base = () => Promise.resolve(new Response(new ReadableStream({ start: (controller) => (chunks.forEach((chunk) => controller.enqueue(chunk)), controller.close()) }), { headers: { "content-type": contentType } }));
  const response = await boundedFetch(limit, base)("http://127.0.0.1/mcp", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} }) });
  return response.text();
}

function cut(bytes: Buffer, at: readonly number[]): Uint8Array[] {
  const points = [...new Set(at.map((point) => point % (bytes.length + 1)))].sort((a, b) => a - b);
  return [0, ...points].map((start, index) => bytes.subarray(start, [...points, bytes.length][index]));
}

const skippedEvent = (bytes: number, limit: number) =>
  `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 7, error: { code: -32090, message: `its answer is ${bytes} bytes, more than the ${limit} sigloop reads of one message`, data: { bytes, limit } } })}\n\n`;

describe("an event stream, however the server's bytes are cut", () => {
  it("property: events within the limit pass byte for byte, and the first one past it becomes the error for the posted request, with its size, ending the stream", async () => {
    const line = fc.stringMatching(/^[a-z:{}" ]{0,40}$/);
    const ending = fc.constantFrom("\n", "\r\n", "\r");
    const event = fc.tuple(fc.array(line, { minLength: 1, maxLength: 4 }), ending).map(([lines, end]) => `${lines.map((text) => `data: ${text}`).join(end)}${end}${end}`);
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }), async (events, at) => {
        const limit = 60;
        const answered = events.findIndex((text) => Buffer.byteLength(text) > limit);
        const expected = events.slice(0, answered === -1 ? events.length : answered + 1).map((text) => (Buffer.byteLength(text) > limit ? skippedEvent(Buffer.byteLength(text), limit) : text)).join("");
        expect(await handedOn("text/event-stream", cut(Buffer.from(events.join("")), at), limit)).toBe(expected);
      }),
      { examples: [[["data: x\r\n\r\n", `data: ${"y".repeat(80)}\n\n`, "data: z\r\r"], [3, 9, 11]]] },
    );
  });

  it("a JSON answer past the limit is the error for the posted request; one within it passes as it came", async () => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "x".repeat(100) }] } }));
    expect(await handedOn("application/json", cut(body, [5, 50]), body.length)).toBe(body.toString());
    expect(JSON.parse(await handedOn("application/json; charset=utf-8", cut(body, [5, 50]), 64))).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32090, message: `its answer is ${body.length} bytes, more than the 64 sigloop reads of one message`, data: { bytes: body.length, limit: 64 } },
    });
  });
});
