/**
 * The body's deadline as `readBody` keeps it, on a stand-in request with a fake clock: a body ending
 * before it is read whole; one not ended by it is too slow; and however the read ends (the body, an
 * error, the client leaving, too many bytes, the deadline) no timer is left behind, so many clients
 * coming and going leave nothing pending in the server.
 */
import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BODY_TIMEOUT_MS, readBody } from "../../src/mcp/http/read-body.js";

/** A request body the test writes, with the headers `readBody` reads. */
function stubRequest(headers: Record<string, string> = {}): PassThrough & IncomingMessage {
  return Object.assign(new PassThrough(), { headers }) as unknown as PassThrough & IncomingMessage;
}

describe("a body's deadline", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reads a body that ends a moment before the deadline whole, and leaves no timer", async () => {
    const req = stubRequest();
    const read = readBody(req, 100, BODY_TIMEOUT_MS);
    req.write('{"a":');
    await vi.advanceTimersByTimeAsync(BODY_TIMEOUT_MS - 1);
    req.end("1}");
    await vi.advanceTimersByTimeAsync(0);
    expect(await read).toEqual({ ok: true, body: Buffer.from('{"a":1}') });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("answers too slow once the time left has passed, counting from what the caller says is left", async () => {
    const req = stubRequest();
    const read = readBody(req, 100, 1200);
    req.write("{");
    await vi.advanceTimersByTimeAsync(1200);
    expect(await read).toEqual({ ok: false, problem: "too slow" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("answers too slow at once when no time is left (the headers' wait took it all)", async () => {
    const read = readBody(stubRequest(), 100, -5);
    await vi.advanceTimersByTimeAsync(0);
    expect(await read).toEqual({ ok: false, problem: "too slow" });
  });

  it.each([
    ["the body errors", (req: PassThrough) => req.destroy(new Error("socket hang up")), "aborted"],
    ["the client leaves", (req: PassThrough) => req.emit("aborted"), "aborted"],
    ["the body grows past the limit", (req: PassThrough) => req.write("x".repeat(101)), "too large"],
  ] as const)("leaves no timer behind when %s", async (_name, end, problem) => {
    const req = stubRequest();
    const read = readBody(req, 100, BODY_TIMEOUT_MS);
    end(req);
    await vi.advanceTimersByTimeAsync(0);
    expect(await read).toEqual({ ok: false, problem });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("sets no timer for a Content-Length over the limit, refused before anything is read", async () => {
    expect(await readBody(stubRequest({ "content-length": "101" }), 100, BODY_TIMEOUT_MS)).toEqual({ ok: false, problem: "too large" });
    expect(vi.getTimerCount()).toBe(0);
  });
});
