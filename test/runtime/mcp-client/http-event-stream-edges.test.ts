/**
 * How the http answer limit (bounded-fetch.ts) reads an event stream at its edges: an event past the limit
 * that is no answer (a server's huge log line before the call's result), the event id a resumable server
 * gives it, an answer on the stream a server opens by itself (a resumed call's), and the stream's own
 * spellings (cut at every byte, CR LF across chunks, a BOM, `data:` without a space, comments), the exact
 * limit, a body that fails midway. Against the fetch wrapper alone, and one call through the library API
 * against a real Streamable HTTP server on 127.0.0.1.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { boundedFetch } from "../../../src/runtime/mcp-client/bounded-fetch.js";
import { callTool, startRawHttpMcpServer, type RawHttpMcpServer } from "../../support/raw-http-mcp-server.js";

const POSTED_CALL = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} });

/** What the wrapper hands on for a body of `chunks`: for a POST of request 7, or for the GET stream (no body). */
async function handedOn(chunks: readonly (string | Uint8Array)[], limit: number, options: { posted?: string | null; contentType?: string; failAfter?: boolean } = {}): Promise<string> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
      if (options.failAfter === true) controller.error(new Error("socket hang up"));
      else controller.close();
    },
  });
  const base = () => Promise.resolve(new Response(body, { headers: { "content-type": options.contentType ?? "text/event-stream" } }));
  const posted = options.posted === undefined ? POSTED_CALL : options.posted;
  const init: RequestInit = posted === null ? { method: "GET" } : { method: "POST", body: posted };
  // Not `text()`, which drops a BOM.
  return Buffer.from(await (await boundedFetch(limit, base)("http://127.0.0.1/mcp", init)).arrayBuffer()).toString("utf8");
}

const tooLarge = (id: number | string, bytes: number, limit: number) =>
  JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32090, message: `its answer is ${bytes} bytes, more than the ${limit} sigloop reads of one message`, data: { bytes, limit } } });

const event = (data: string, fields = "event: message\n") => `${fields}data: ${data}\n\n`;
const bytesOf = (text: string) => Buffer.byteLength(text);

describe("an event past the limit on a call's stream", () => {
  it("that is a notification (a huge log line before the result) is dropped, and the call's result still comes", async () => {
    const log = event(JSON.stringify({ method: "notifications/message", params: { level: "info", data: "x".repeat(400) }, jsonrpc: "2.0" }));
    const pythonLog = event(JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1, message: "y".repeat(400) } }));
    const result = event(JSON.stringify({ result: { content: [{ type: "text", text: "done" }] }, jsonrpc: "2.0", id: 7 }));
    expect(await handedOn([log, pythonLog, result], 200)).toBe(result);
  });

  it("keeps the event's id on the error standing for it, so a resumed stream starts after it and does not send it again", async () => {
    const answer = event(JSON.stringify({ jsonrpc: "2.0", id: 7, result: { text: "z".repeat(400) } }), "event: message\nid: stream-1_42\n");
    expect(await handedOn(["event: message\nid: stream-1_41\ndata: \n\n", answer], 200)).toBe(
      `event: message\nid: stream-1_41\ndata: \n\nid: stream-1_42\nevent: message\ndata: ${tooLarge(7, bytesOf(answer), 200)}\n\n`,
    );
  });

  it("of a type the SDK ignores is dropped; one of the default type (none, or empty) is the error for the posted request", async () => {
    const data = JSON.stringify({ jsonrpc: "2.0", id: 7, result: { text: "z".repeat(400) } });
    expect(await handedOn([event(data, "event: ping\n")], 200)).toBe("");
    expect(await handedOn([event(data, "event:\n")], 200)).toBe(`event: message\ndata: ${tooLarge(7, bytesOf(event(data, "event:\n")), 200)}\n\n`);
    expect(await handedOn([event(data, "")], 200)).toBe(`event: message\ndata: ${tooLarge(7, bytesOf(event(data, "")), 200)}\n\n`);
  });

  it("that is an answer to another request than the one posted is the error for the id it names", async () => {
    const answer = event(`{"jsonrpc":"2.0","id":"other","result":{"text":"${"z".repeat(400)}"}}`);
    expect(await handedOn([answer], 200)).toBe(`event: message\ndata: ${tooLarge("other", bytesOf(answer), 200)}\n\n`);
  });
});

describe("an event past the limit that begins with a comment longer than what is kept of its start", () => {
  const result = event(JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [] } }));

  it("with no data line (a comment carries no message) is dropped, and the call's result after it passes", async () => {
    expect(await handedOn([`: ${"x".repeat(2000)}\n\n`, result], 200)).toBe(result);
    expect(await handedOn([`\uFEFF: ${"x".repeat(2000)}\r\nretry: 10\r\n\r\n`, result], 200)).toBe(result);
  });

  it("with a data line after the comment is the error for the posted request, a BOM before it too", async () => {
    const answer = `: ${"x".repeat(2000)}\ndata: {"jsonrpc":"2.0","result":{}}\n\n`;
    expect(await handedOn([answer], 200)).toBe(`event: message\ndata: ${tooLarge(7, bytesOf(answer), 200)}\n\n`);
    const bom = `\uFEFFdata: {"jsonrpc":"2.0","result":{"text":"${"z".repeat(400)}"}}\n\n`;
    expect(await handedOn([bom], 200)).toBe(`event: message\ndata: ${tooLarge(7, bytesOf(bom), 200)}\n\n`);
  });

  it("property: cut anywhere, it answers the posted call exactly when one of its lines is a data field", async () => {
    const other = fc.oneof(fc.stringMatching(/^: ?[a-z ]{0,30}$/), fc.constantFrom("event: message", "retry: 10", "dat", "dataa: x", "data x", "xdata: y", ":data: z", " data: w"));
    const lines = fc.tuple(fc.array(other, { maxLength: 6 }), fc.option(fc.nat(), { nil: undefined }), fc.constantFrom("\n", "\r\n", "\r"));
    await fc.assert(fc.asyncProperty(lines, fc.array(fc.nat(), { maxLength: 8 }), async ([others, dataAt, end], at) => {
      const all = [`: ${"p".repeat(300)}`, ...others];
      if (dataAt !== undefined) all.splice(1 + (dataAt % all.length), 0, `data: {"jsonrpc":"2.0","result":{}}`);
      const text = `${all.join(end)}${end}${end}`;
      const bytes = Buffer.from(text);
      const points = [...new Set(at.map((point) => point % (bytes.length + 1)))].sort((a, b) => a - b);
      const chunks = [0, ...points].map((start, index) => bytes.subarray(start, [...points, bytes.length][index]));
      expect(await handedOn(chunks, 200)).toBe(dataAt === undefined ? "" : `event: message\ndata: ${tooLarge(7, bytes.length, 200)}\n\n`);
    }));
  });
});

describe("an event past the limit on the stream a server opens by itself (GET)", () => {
  it("that answers a request (a call resumed there) is the error for the id it names, wherever the SDK writes it", async () => {
    const typescript = event(`{"result":{"text":"${"a".repeat(400)}"},"jsonrpc":"2.0","id":3}`, "event: message\nid: 9\n");
    const python = event(`{"jsonrpc":"2.0","id":"call-4","result":{"text":"${"b".repeat(400)}"}}`);
    expect(await handedOn([typescript, python], 200, { posted: null })).toBe(
      `id: 9\nevent: message\ndata: ${tooLarge(3, bytesOf(typescript), 200)}\n\nevent: message\ndata: ${tooLarge("call-4", bytesOf(python), 200)}\n\n`,
    );
  });

  it("that names no id is dropped, the events after it passing", async () => {
    const after = event(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`);
    expect(await handedOn([event(`{"result":{"text":"${"a".repeat(400)}"}}`), after], 200, { posted: null })).toBe(after);
  });
});

describe("an event stream's spellings, within the limit", () => {
  const stream = [
    "\uFEFF: a comment first\n",
    // An answer to another request than the posted one (7): the stream goes on after it.
    "event: message\r\nid: 1\r\ndata:{\"jsonrpc\":\"2.0\",\r\ndata: \"id\":8,\"result\":{}}\r\n\r\n",
    ": keep-alive\r\r",
    "retry: 1000\n\n",
    `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"é ✓"}}\r\n\n`,
  ].join("");

  it("pass byte for byte, whether cut at every byte or with a CR ending one chunk and its LF starting the next", async () => {
    const bytes = Buffer.from(stream);
    expect(await handedOn([...bytes].map((byte) => Uint8Array.of(byte)), 1000)).toBe(stream);
    const crlf = stream.indexOf("\r\n\r\n") + 1;
    expect(await handedOn([bytes.subarray(0, crlf), bytes.subarray(crlf)], 1000)).toBe(stream);
  });

  it("property: any cut of any mix of fields, comments and line endings passes as it came", async () => {
    const line = fc.oneof(fc.stringMatching(/^data:? ?[a-z{}" é]{0,12}$/), fc.stringMatching(/^: ?[a-z]{0,8}$/), fc.constantFrom("id: 5", "event: message", "retry: 10", "data"));
    const ending = fc.constantFrom("\n", "\r\n", "\r");
    const events = fc.array(fc.tuple(fc.array(line, { minLength: 1, maxLength: 4 }), ending), { maxLength: 5 })
      .map((list) => list.map(([lines, end]) => `${lines.join(end)}${end}${end}`).join(""));
    await fc.assert(fc.asyncProperty(events, fc.array(fc.nat(), { maxLength: 10 }), async (text, at) => {
      const bytes = Buffer.from(text);
      const points = [...new Set(at.map((point) => point % (bytes.length + 1)))].sort((a, b) => a - b);
      const chunks = [0, ...points].map((start, index) => bytes.subarray(start, [...points, bytes.length][index]));
      expect(await handedOn(chunks, 1000)).toBe(text);
    }));
  });
});

describe("the limit itself", () => {
  const answerOf = (bytes: number) => {
    const frame = event(`{"jsonrpc":"2.0","id":7,"result":{"text":""}}`);
    return event(`{"jsonrpc":"2.0","id":7,"result":{"text":"${"c".repeat(bytes - bytesOf(frame))}"}}`);
  };

  it("holds an event of exactly the limit, its empty line counted, and skips one a byte over", async () => {
    expect(await handedOn([answerOf(300)], 300)).toBe(answerOf(300));
    expect(await handedOn([answerOf(301)], 300)).toBe(`event: message\ndata: ${tooLarge(7, 301, 300)}\n\n`);
  });

  it("holds a JSON answer of exactly the limit, a batch array too, and answers one a byte over with the error", async () => {
    const batch = JSON.stringify([{ jsonrpc: "2.0", id: 7, result: {} }]);
    expect(await handedOn([batch], bytesOf(batch), { contentType: "application/json" })).toBe(batch);
    expect(await handedOn([batch], bytesOf(batch) - 1, { contentType: "application/json" })).toBe(tooLarge(7, bytesOf(batch), bytesOf(batch) - 1));
  });

  it("fails the read of a JSON answer past it to a POST that is no request (a notification): there is no call to answer", async () => {
    const notification = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
    await expect(handedOn(["x".repeat(50)], 10, { posted: notification, contentType: "application/json" })).rejects.toThrow(
      "an answer of 50 bytes to no request sigloop could tell was skipped: it is more than the 10 sigloop reads of one message",
    );
  });

  it("passes a body's failure midway on to the reader, as the SDK would have met it", async () => {
    await expect(handedOn(["data: {\"jsonrpc\":\"2.0\",\"id\":7,"], 1000, { failAfter: true })).rejects.toThrow("socket hang up");
    await expect(handedOn(["{\"jsonrpc\""], 1000, { failAfter: true, contentType: "application/json" })).rejects.toThrow("socket hang up");
  });
});

describe("a call whose stream carries a log line past the limit before its result (a real server, the real SDK)", () => {
  let server: RawHttpMcpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("gets its result", async () => {
    server = await startRawHttpMcpServer({
      tools: ["loud"],
      capabilities: { logging: {} },
      onCall(response, id) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(event(JSON.stringify({ method: "notifications/message", params: { level: "debug", data: "d".repeat(11 * 1024 * 1024) }, jsonrpc: "2.0" })));
        response.end(event(JSON.stringify({ result: { content: [{ type: "text", text: "all done" }] }, jsonrpc: "2.0", id })));
      },
    });
    expect(await callTool(await server.connectAgent(), "h__loud")).toEqual({ status: "ok", content: "all done" });
  });

  it("gets its result after a comment past the limit too", async () => {
    server = await startRawHttpMcpServer({
      tools: ["padded"],
      onCall(response, id) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(`: ${"p".repeat(11 * 1024 * 1024)}\n\n`);
        response.end(event(JSON.stringify({ result: { content: [{ type: "text", text: "after the padding" }] }, jsonrpc: "2.0", id })));
      },
    });
    expect(await callTool(await server.connectAgent(), "h__padded")).toEqual({ status: "ok", content: "after the padding" });
  });
});
