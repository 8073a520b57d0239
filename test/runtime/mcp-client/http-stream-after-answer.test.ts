/**
 * What the agent's http MCP client does with a call's event stream that the server leaves open after the
 * call's answer (keep-alive comments, no end): the call's result reaches the caller, the stream stops
 * being read there and its request is ended (the server sees its response closed), so calls in a row
 * leave no connections open; a resumable stream answered with an error is not opened again. Against a
 * raw node:http server on 127.0.0.1 through the library API, and against the fetch wrapper alone.
 */
import type { Socket } from "node:net";
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { boundedFetch } from "../../../src/runtime/mcp-client/bounded-fetch.js";
import { callTool, startRawHttpMcpServer, type RawHttpMcpServer } from "../../support/raw-http-mcp-server.js";

const event = (data: string, fields = "event: message\n") => `${fields}data: ${data}\n\n`;
const notification = event(JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working" } }));

/** Writes a keep-alive comment every 50 ms for as long as the response is open. */
function keepAlive(response: ServerResponse): void {
  const timer = setInterval(() => response.write(": keep-alive\n\n"), 50);
  response.on("close", () => clearInterval(timer));
}

let server: RawHttpMcpServer | undefined;
/** Each call's response, and whether the client has closed it. */
let responses: { closed: boolean }[] = [];
/** The server's sockets still open. */
const sockets = new Set<Socket>();

afterEach(async () => {
  await server?.close();
  server = undefined;
  responses = [];
  sockets.clear();
});

async function start(): Promise<RawHttpMcpServer> {
  server = await startRawHttpMcpServer({
    tools: ["answers_then_lingers", "refuses_then_lingers", "answers_with_cr_then_lingers", "answers_with_string_id_then_lingers"],
    capabilities: { logging: {} },
    onCall(response, id, name) {
      const seen = { closed: false };
      responses.push(seen);
      response.on("close", () => (seen.closed = true));
      const socket = response.socket!;
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      response.writeHead(200, { "content-type": "text/event-stream" });
      const done = (answerId: unknown) => JSON.stringify({ jsonrpc: "2.0", id: answerId, result: { content: [{ type: "text", text: "done" }] } });
      if (name === "answers_then_lingers") {
        response.write(notification);
        response.write(event(done(id)));
      } else if (name === "answers_with_cr_then_lingers") {
        // Lines ended by a CR alone, which the event-stream format allows.
        response.write(`event: message\rdata: ${done(id)}\r\r`);
      } else if (name === "answers_with_string_id_then_lingers") {
        // The SDK takes "7" as the answer to its request 7.
        response.write(event(done(String(id))));
      } else {
        // A priming event with an id, as a resumable server sends first.
        response.write("id: p1\ndata: \n\n");
        response.write(event(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32602, message: "no such row" } }), "event: message\nid: p2\n"));
      }
      keepAlive(response);
    },
  });
  return server;
}

async function until(check: () => boolean, withinMs: number): Promise<boolean> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline; await sleep(20)) if (check()) return true;
  return check();
}

describe("a call whose event stream stays open after its answer", () => {
  it("gets its result, and the server sees its response closed soon after", async () => {
    const servers = await (await start()).connectAgent();
    expect(await callTool(servers, "h__answers_then_lingers")).toEqual({ status: "ok", content: "done" });
    expect(await until(() => responses[0]!.closed, 2_000)).toBe(true);
  });

  it("leaves no connection open: five calls in a row, every response closed and no socket of theirs left", async () => {
    const servers = await (await start()).connectAgent();
    for (let call = 0; call < 5; call++) expect(await callTool(servers, "h__answers_then_lingers")).toEqual({ status: "ok", content: "done" });
    expect(await until(() => responses.every(({ closed }) => closed) && sockets.size === 0, 2_000)).toBe(true);
    expect(responses).toHaveLength(5);
  });

  it.each([["lines ended by CR alone", "h__answers_with_cr_then_lingers"], ["the request's id as a string", "h__answers_with_string_id_then_lingers"]])(
    "answered with %s: gets its result, and the server sees its response closed soon after",
    async (_how, tool) => {
      const servers = await (await start()).connectAgent({ callTimeoutMs: 3_000 });
      expect(await callTool(servers, tool)).toEqual({ status: "ok", content: "done" });
      expect(await until(() => responses[0]!.closed, 2_000)).toBe(true);
    },
  );

  it("answered with an error on a resumable stream: the call gets the error, the response is closed and the stream not opened again", async () => {
    const raw = await start();
    const servers = await raw.connectAgent();
    expect(await callTool(servers, "h__refuses_then_lingers")).toEqual({ status: "tool_error", content: 'The MCP server "h" refused the call to h__refuses_then_lingers: MCP error -32602: no such row' });
    expect(await until(() => responses[0]!.closed, 2_000)).toBe(true);
    await sleep(300);
    expect(raw.received.filter(({ httpMethod }) => httpMethod === "GET").map(({ lastEventId }) => lastEventId)).not.toContain("p2");
    expect(raw.received.some(({ lastEventId }) => lastEventId !== undefined)).toBe(false);
  });
});

const POSTED_CALL = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} });

/** What the wrapper hands on of an endless body that has `text` and then nothing more, and whether it aborted the request. */
async function handedOnOpen(text: string): Promise<{ handed: string; aborted: boolean }> {
  let signal: AbortSignal | undefined;
  const base = (_url: string | URL, init?: RequestInit) => {
    signal = init?.signal ?? undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(Buffer.from(text));
        // Never closed: the server keeps the stream open; the request's abort errors it, as fetch does.
        signal?.addEventListener("abort", () => controller.error(signal!.reason), { once: true });
      },
    });
    return Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } }));
  };
  const response = await boundedFetch(1000, base)("http://127.0.0.1/mcp", { method: "POST", body: POSTED_CALL });
  const handed = await Promise.race([response.text(), sleep(2_000).then(() => "(still open)")]);
  return { handed, aborted: signal?.aborted === true };
}

describe("the fetch wrapper, for a posted request's stream", () => {
  const result = event(JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [] } }));

  it("property: wherever the answer falls among notifications, requests and comments, all up to it passes, the stream ends there and the request is aborted", async () => {
    const other = fc.constantFrom(
      notification,
      ": keep-alive\n\n",
      event(JSON.stringify({ jsonrpc: "2.0", id: "s1", method: "sampling/createMessage", params: {} })),
      // Another request's answer, and one of a type the SDK ignores: neither answers 7.
      event(JSON.stringify({ jsonrpc: "2.0", id: 8, result: {} })),
      event(JSON.stringify({ jsonrpc: "2.0", id: 7, result: {} }), "event: ping\n"),
      "retry: 10\r\n\r\n",
    );
    await fc.assert(
      fc.asyncProperty(fc.array(other, { maxLength: 5 }), fc.array(other, { maxLength: 3 }), async (before, after) => {
        const { handed, aborted } = await handedOnOpen([...before, result, ...after].join(""));
        expect(handed).toBe([...before, result].join(""));
        expect(aborted).toBe(true);
      }),
    );
  });

  it("an error answer on a stream with no event ids ends it too", async () => {
    const error = event(JSON.stringify({ jsonrpc: "2.0", id: 7, error: { code: -32602, message: "bad" } }));
    expect(await handedOnOpen(`${error}: keep-alive\n\n`)).toEqual({ handed: error, aborted: true });
  });

  it("an answer whose last line ends with CR alone is handed on with an LF after it, so the SDK's parser, which waits for the byte after a CR, dispatches it", async () => {
    const answer = `data: ${JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [] } })}\r\r`;
    expect(await handedOnOpen(`${answer}: keep-alive\r\r`)).toEqual({ handed: `${answer}\n`, aborted: true });
    const crlf = `data: ${JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [] } })}\r\n\r\n`;
    expect(await handedOnOpen(`${crlf}: keep-alive\r\n\r\n`)).toEqual({ handed: crlf, aborted: true });
  });

  it("a stream with no answer to the posted request is left as it is", async () => {
    expect(await handedOnOpen(`${notification}: keep-alive\n\n`)).toEqual({ handed: "(still open)", aborted: false });
  });
});
