/**
 * How a call to an http MCP server ends when it must stop before its answer: its time limit
 * (`--tool-timeout`) runs out, or the run is aborted (Ctrl-C). Against a raw node:http server on
 * 127.0.0.1 that sends nothing, or answers with an event stream that never ends (keep-alives and small notifications, one
 * endless huge event) or an endless JSON body: the call gets its time-limit (or interrupted) result, the
 * server gets `notifications/cancelled` for the request and sees its response closed by the client soon
 * after, a resumable stream is not opened again, and the server's next call is answered.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, flood, flooded, startRawHttpMcpServer, type RawHttpMcpServer } from "../../support/raw-http-mcp-server.js";

const LIMIT_MS = 800;
/** How soon after the call ends the server must see its response closed. */
const CLOSED_WITHIN_MS = 1_000;

/** One response the server is writing for a call, and when the client closed it. */
interface Answering {
  id: unknown;
  name: string;
  closed: Promise<number>;
}

const event = (data: string, fields = "event: message\n") => `${fields}data: ${data}\n\n`;
const tick = event(JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "tick" } }));

/** Writes a keep-alive comment and a small notification in turn every 100 ms, never the result. */
function keepAlive(response: ServerResponse): void {
  let count = 0;
  const timer = setInterval(() => response.write(count++ % 2 === 0 ? ": keep-alive\n\n" : tick), 100);
  response.on("close", () => clearInterval(timer));
}

function answerCall(response: ServerResponse, id: unknown, name: string): void {
  const stream = (): void => void response.writeHead(200, { "content-type": "text/event-stream" });
  if (name === "ok") return void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "fine" }] } }));
  if (name === "ticks") return void (stream(), keepAlive(response));
  // Not even the response's headers.
  if (name === "silent") return;
  if (name === "resumable") {
    stream();
    // A priming event with an id, as a resumable server sends first: the SDK would resume such a stream with a GET.
    response.write("id: e1\nretry: 20\ndata: \n\n");
    return keepAlive(response);
  }
  if (name === "huge_event") return void (stream(), response.write("event: message\ndata: "), flood(response, "x".repeat(64 * 1024)));
  if (name === "huge_json") {
    response.writeHead(200, { "content-type": "application/json" });
    response.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`);
    return flood(response, "y".repeat(64 * 1024));
  }
  throw new Error(`no such tool ${name}`);
}

let server: RawHttpMcpServer | undefined;
let answering: Answering[] = [];

async function start(): Promise<RawHttpMcpServer> {
  server = await startRawHttpMcpServer({
    tools: ["ok", "silent", "ticks", "resumable", "huge_event", "huge_json"],
    capabilities: { logging: {} },
    onCall(response, id, name) {
      answering.push({ id, name, closed: new Promise((resolve) => response.on("close", () => resolve(Date.now()))) });
      answerCall(response, id, name);
    },
  });
  return server;
}

afterEach(async () => {
  await server?.close();
  server = undefined;
  answering = [];
  flooded.reset();
});

async function cancelledReached(raw: RawHttpMcpServer, id: unknown): Promise<boolean> {
  for (const deadline = Date.now() + 2_000; Date.now() < deadline; await sleep(20)) {
    if (raw.received.some(({ message }) => message?.method === "notifications/cancelled" && message.params?.requestId === id)) return true;
  }
  return false;
}

/** Calls `name`, stopped by its time limit or by aborting the run 300 ms in; checks how the call and its response ended. */
async function expectCallEnds(name: string, stop: "time limit" | "abort"): Promise<void> {
  const raw = await start();
  const servers = await raw.connectAgent({ callTimeoutMs: LIMIT_MS });
  const run = new AbortController();
  if (stop === "abort") setTimeout(() => run.abort(), 300);
  const outcome = await callTool(servers, `h__${name}`, run.signal);
  const endedAt = Date.now();
  expect(outcome).toEqual(
    stop === "abort"
      ? { status: "aborted", content: `The tool h__${name} was interrupted before it finished; it has no result.` }
      : { status: "timeout", content: `The tool h__${name} timed out: it did not finish within 800 ms, so it was stopped and has no result. Try a smaller task or another approach.` },
  );
  const [call] = answering;
  const closedAt = await Promise.race([call!.closed, sleep(3_000).then(() => undefined)]);
  expect(closedAt, "the server saw its response closed").toBeDefined();
  expect(closedAt! - endedAt).toBeLessThan(CLOSED_WITHIN_MS);
  // The endless answers are read well past the 10 MiB limit before the call's time runs out.
  if (name.startsWith("huge_") && stop === "time limit") expect(flooded.bytes).toBeGreaterThan(10 * 1024 * 1024);
  expect(await cancelledReached(raw, call!.id)).toBe(true);
  expect(await callTool(servers, "h__ok")).toEqual({ status: "ok", content: "fine" });
}

describe("a call whose http answer does not end in time", () => {
  for (const stop of ["time limit", "abort"] as const) {
    describe(`stopped by its ${stop}`, () => {
      it("before the response's headers: the result says so, the server is told and the request closed, the next call works", async () => {
        await expectCallEnds("silent", stop);
      });

      it("on an event stream of keep-alives and notifications: the result says so, the server is told and its stream closed, the next call works", async () => {
        await expectCallEnds("ticks", stop);
      });

      it("on one endless huge event: the same, and the client stops reading it", async () => {
        await expectCallEnds("huge_event", stop);
      });

      it("on an endless JSON answer past 10 MiB: the same, the read of it cancelled rather than counted on in the background", async () => {
        await expectCallEnds("huge_json", stop);
      });
    });
  }

  it("on a resumable stream (its events have ids): the stream is not opened again with Last-Event-ID for the stopped call", async () => {
    await expectCallEnds("resumable", "time limit");
    await sleep(300);
    expect(server!.received.filter(({ lastEventId }) => lastEventId !== undefined)).toEqual([]);
  });
});
