/**
 * The HTTP server's settings and rules as pure functions: `--http [HOST:]PORT`, the loopback rule, the
 * token file and the constant-time match, the Origin/Host guard, the call queue, and the flags that do
 * not go together. Property tests feed them what a user, a client or a browser could send.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { JSONRPCMessageSchema, RELATED_TASK_META_KEY } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CallQueue, QueueFull } from "../../src/mcp/call-queue.js";
import { readBearerTokens, tokenIndex } from "../../src/mcp/http/bearer-tokens.js";
import { isLoopback, parseListenAddress } from "../../src/mcp/http/listen-address.js";
import { rebindingGuard } from "../../src/mcp/http/rebinding-guard.js";
import { parseMcpArgs } from "../../src/mcp/parse-mcp-args.js";
import { parseBodyMessage } from "../../src/mcp/http/json-rpc-body.js";
import { idString } from "../../src/mcp/id-literals.js";
import { describeMessage, requestLogLine, type RequestRecord } from "../../src/mcp/http/request-log.js";
import { tempDir } from "./support.js";

describe("--http [HOST:]PORT", () => {
  it("reads a port, a host and a port, and a bracketed IPv6 address", () => {
    expect(parseListenAddress("8080")).toEqual({ ok: true, address: { host: "127.0.0.1", port: 8080 } });
    expect(parseListenAddress("0")).toEqual({ ok: true, address: { host: "127.0.0.1", port: 0 } });
    expect(parseListenAddress("0.0.0.0:9000")).toEqual({ ok: true, address: { host: "0.0.0.0", port: 9000 } });
    expect(parseListenAddress("[::1]:0")).toEqual({ ok: true, address: { host: "::1", port: 0 } });
    expect(parseListenAddress("localhost:3000")).toEqual({ ok: true, address: { host: "localhost", port: 3000 } });
  });

  it("refuses what is not [HOST:]PORT, saying how to write it", () => {
    expect(parseListenAddress("::1:8080")).toMatchObject({ ok: false, error: expect.stringContaining("[HOST:]PORT") });
    expect(parseListenAddress("[127.0.0.1]:80")).toEqual({ ok: false, error: "[127.0.0.1] is not an IPv6 address" });
    expect(parseListenAddress("70000")).toEqual({ ok: false, error: "port 70000 is over 65535" });
    expect(parseListenAddress(":80")).toMatchObject({ ok: false });
  });

  it("never throws, and any port it accepts is 0 to 65535", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseListenAddress(text);
        if (parsed.ok) expect(parsed.address.port).toBeLessThanOrEqual(65535);
      }),
    );
  });

  it("counts 127.0.0.0/8, ::1 and localhost as loopback, nothing else", () => {
    for (const host of ["127.0.0.1", "127.3.2.1", "::1", "localhost", "LOCALHOST"]) expect(isLoopback(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "localhost.evil.example", "192.168.1.2"]) expect(isLoopback(host)).toBe(false);
  });
});

describe("bearer tokens", () => {
  it("reads one token per line, skipping blank and # lines, trimming CRLF, and adds $SIGLOOP_MCP_TOKEN", () => {
    const file = path.join(tempDir(), "tokens");
    writeFileSync(file, "# team\r\nalpha-1\r\n\r\n  beta-2  \n#gamma\n");
    expect(readBearerTokens([file], "env-3", "/")).toEqual({ ok: true, tokens: ["alpha-1", "beta-2", "env-3"] });
    expect(readBearerTokens([], undefined, "/")).toEqual({ ok: true, tokens: [] });
  });

  it("refuses a missing file and one without any token", () => {
    const dir = tempDir();
    const empty = path.join(dir, "empty");
    writeFileSync(empty, "# nothing yet\n\n");
    expect(readBearerTokens(["missing"], undefined, dir)).toEqual({ ok: false, error: `cannot read the token file ${path.join(dir, "missing")} (ENOENT) (--token-file)` });
    expect(readBearerTokens([empty], undefined, "/")).toMatchObject({ ok: false, error: expect.stringContaining("holds no token") });
  });

  it("refuses a directory or a FIFO without blocking on it", () => {
    const dir = tempDir();
    const fifo = path.join(dir, "tokens.fifo");
    execFileSync("mkfifo", [fifo]);
    expect(readBearerTokens([fifo], undefined, "/")).toEqual({ ok: false, error: `${fifo} is a FIFO (named pipe), not a regular file (--token-file): give the file that holds the tokens` });
    expect(readBearerTokens(["."], undefined, dir)).toEqual({ ok: false, error: `${dir} is a directory, not a regular file (--token-file): give the file that holds the tokens` });
  });

  it("matches exactly the configured tokens, whatever is presented", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 5 }), fc.string(), (tokens, presented) => {
        const index = tokenIndex(tokens);
        const matches = (token: string) => index(token) !== undefined;
        expect(matches(presented)).toBe(tokens.includes(presented));
        for (const token of tokens) expect(matches(token)).toBe(true);
      }),
    );
  });
});

describe("the DNS-rebinding guard", () => {
  const loopback = rebindingGuard({ host: "127.0.0.1", boundAddress: "127.0.0.1", port: 8080, allowOrigins: ["https://app.example"] });
  const open = rebindingGuard({ host: "0.0.0.0", boundAddress: "0.0.0.0", port: 8080, allowOrigins: [] });

  it("allows no Origin, the server's own origins and --allow-origin; refuses null and the rest", () => {
    for (const origin of [undefined, "https://app.example", "http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080"]) expect(loopback(origin, "localhost:8080")).toBeUndefined();
    for (const origin of ["null", "https://evil.example", "http://localhost:8081", "https://localhost:8080", "https://app.example:443"]) expect(loopback(origin, "localhost:8080")).toMatch(/Origin/);
  });

  it("checks Host on a loopback bind only", () => {
    expect(loopback(undefined, "127.0.0.1:8080")).toBeUndefined();
    expect(loopback(undefined, "LOCALHOST:8080")).toBeUndefined();
    for (const host of [undefined, "evil.example:8080", "localhost", "127.0.0.1:80"]) expect(loopback(undefined, host)).toMatch(/Host/);
    expect(open(undefined, "mcp.team.example")).toBeUndefined();
  });

  it("refuses every origin it was not given, whatever a browser sends", () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl(), fc.string()), (origin) => {
        const allowed = ["https://app.example", "http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080"].includes(origin);
        expect(loopback(origin, "localhost:8080") === undefined).toBe(allowed);
      }),
    );
  });
});

describe("the call queue", () => {
  it("runs at most maxConcurrent at once, queues maxQueued more in order, and refuses the rest", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 12 }), async (maxConcurrent, maxQueued, submitted) => {
        const queue = new CallQueue(maxConcurrent, maxQueued);
        let running = 0;
        let peak = 0;
        const started: number[] = [];
        const releases: (() => void)[] = [];
        const outcomes = Array.from({ length: submitted }, (_, index) =>
          queue.run(async () => {
            started.push(index);
            running += 1;
            peak = Math.max(peak, running);
            await new Promise<void>((resolve) => releases.push(resolve));
            running -= 1;
            return index;
          }).then((value) => ({ ok: value }), (error: unknown) => ({ refused: error instanceof QueueFull })),
        );
        while (started.length < Math.min(submitted, maxConcurrent + maxQueued)) {
          await new Promise((resolve) => setTimeout(resolve, 0));
          releases.shift()?.();
        }
        for (;;) {
          await new Promise((resolve) => setTimeout(resolve, 0));
          const release = releases.shift();
          if (release === undefined) break;
          release();
        }
        const results = await Promise.all(outcomes);
        const accepted = Math.min(submitted, maxConcurrent + maxQueued);
        expect(peak).toBeLessThanOrEqual(maxConcurrent);
        expect(started).toEqual(Array.from({ length: accepted }, (_, index) => index));
        expect(results.filter((result) => "refused" in result && result.refused)).toHaveLength(submitted - accepted);
      }),
      { numRuns: 60 },
    );
  });

  it("drops a waiting call whose signal aborts, without running it", async () => {
    const queue = new CallQueue(1, 2);
    let release: () => void = () => undefined;
    const first = queue.run(() => new Promise<string>((resolve) => (release = () => resolve("first"))));
    const controller = new AbortController();
    let ran = false;
    const waiting = queue.run(async () => void (ran = true), controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    release();
    expect(await first).toBe("first");
    expect(ran).toBe(false);
    expect(queue.full).toBe(false);
  });
});

describe("what a POST body holds", () => {
  it("names the common mistakes of a message that is not JSON-RPC 2.0 as MCP sends it", () => {
    const problem = (message: unknown) => {
      const parsed = parseBodyMessage(Buffer.from(JSON.stringify(message)));
      return parsed.ok ? "accepted" : parsed.error;
    };
    const shape = (why: string) => `Invalid Request: not a JSON-RPC 2.0 message (${why}).`;
    expect(problem({ jsonrpc: "2.0", id: 1, method: "tools/list", params: [1] })).toBe(shape(`"params" must be an object: MCP passes parameters by name`));
    for (const id of [{ a: 1 }, null, 1.5]) expect(problem({ jsonrpc: "2.0", id, method: "tools/list" })).toBe(shape(`"id" must be a string or an integer (MCP allows no null id)`));
    expect(problem({ id: 7, method: "tools/list" })).toBe(shape(`"jsonrpc" must be "2.0"`));
    expect(problem({ jsonrpc: "2.0", id: 7, method: 5 })).toBe(shape(`"method" must be a string`));
    expect(problem({ jsonrpc: "2.0", id: 7 })).toBe(shape(`it has no "method" (a request or notification), "result" or "error" (a response)`));
    expect(problem("tools/list")).toBe(shape("a message is a JSON object"));
  });

  it("classifies any body: a message, a parse error (-32700, id null) or an invalid request (-32600); batches are invalid", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((value) => JSON.stringify(value))), (text) => {
        const parsed = parseBodyMessage(Buffer.from(text));
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          expect(parsed).toMatchObject({ ok: false, code: -32700, id: null });
          return;
        }
        if (Array.isArray(json)) expect(parsed).toMatchObject({ ok: false, code: -32600 });
        else if (parsed.ok) expect(parsed.message).toEqual(json);
        else expect(parsed.code).toBe(-32600);
      }),
    );
  });

  it("accepts exactly the messages the SDK's schema accepts, however nearly shaped like a call", () => {
    // Mostly well-formed calls and notifications, each member sometimes replaced by a near miss.
    const nearly = <T, U>(usual: fc.Arbitrary<T>, miss: fc.Arbitrary<U>) => fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: miss, weight: 1 });
    const absent = fc.constant(undefined);
    const id = nearly(fc.oneof(fc.string(), fc.integer(), absent), fc.oneof(fc.double(), fc.constant(2 ** 53), fc.constant(null), fc.boolean()));
    const meta = fc.oneof(
      fc.record({ progressToken: nearly(fc.oneof(fc.string(), fc.integer()), fc.oneof(fc.double(), fc.constant(null))) }, { requiredKeys: [] }),
      fc.record({ [RELATED_TASK_META_KEY]: fc.oneof(fc.record({ taskId: fc.string() }), fc.jsonValue()) }),
      fc.jsonValue(),
    );
    const params = nearly(
      fc.oneof(absent, fc.record({ name: fc.string(), arguments: fc.jsonValue() })),
      fc.oneof(meta.map((_meta) => ({ name: "add", _meta })), fc.jsonValue()),
    );
    const message = fc
      .record({
        jsonrpc: nearly(fc.constant("2.0"), fc.oneof(fc.constant("1.0"), fc.constant(2), absent)),
        id,
        method: nearly(fc.constant("tools/call"), fc.oneof(fc.integer(), absent)),
        params,
        other: nearly(absent, fc.record({ result: fc.jsonValue(), error: fc.oneof(fc.record({ code: fc.integer(), message: fc.string() }), fc.jsonValue()), extra: fc.jsonValue() }, { requiredKeys: [] })),
      })
      .map(({ other, ...members }) => ({ ...members, ...other }));
    fc.assert(
      fc.property(message, (value) => {
        const json = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
        const parsed = parseBodyMessage(Buffer.from(JSON.stringify(json)));
        // An integer id beyond 2^53, which the schema refuses, is accepted and kept as written.
        const big = Number.isInteger(json.id) && !Number.isSafeInteger(json.id);
        expect(parsed.ok).toBe(JSONRPCMessageSchema.safeParse(big ? { ...json, id: "big" } : json).success);
        if (parsed.ok && big) expect([idString((parsed.message as { id: string }).id), { ...parsed.message, id: json.id }]).toEqual([JSON.stringify(json.id), json]);
        else if (parsed.ok) expect(parsed.message).toEqual(json);
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps arguments exactly as sent", () => {
    const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: [1, 2], extra: { deep: true } } };
    expect(parseBodyMessage(Buffer.from(JSON.stringify(body)))).toEqual({ ok: true, message: body });
  });
});

describe("the request log line", () => {
  it("never repeats a method or tool name that is not shaped like one, nor anything from the arguments", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 1 }), (method, tool, secret) => {
        const record: RequestRecord = { httpMethod: "POST" };
        describeMessage(record, { jsonrpc: "2.0", id: 1, method, params: { name: tool, arguments: { secret } } });
        const line = requestLogLine(record, 200, 3.4);
        const shaped = /^[\w/.$-]{1,64}$/.test(method);
        expect(line).toBe(shaped ? `http: POST ${method}${method === "tools/call" ? ` ${/^[a-zA-Z0-9_-]{1,64}$/.test(tool) ? tool : "(unreadable tool name)"}` : ""} 200 - 3ms` : "http: POST (unreadable method) 200 - 3ms");
      }),
    );
  });
});

describe("flags that do not go together", () => {
  const base = ["--workspace", "."];
  it("refuses HTTP flags without --http, session flags with --stateless and a partial JWT setup", () => {
    expect(parseMcpArgs([...base, "--token-file", "t"])).toEqual({ ok: false, error: "--token-file is a flag of the HTTP server: add --http [HOST:]PORT" });
    expect(parseMcpArgs([...base, "--http", "0", "--stateless", "--session-idle", "5"])).toEqual({ ok: false, error: "--session-idle limits sessions, and --stateless keeps none: drop one of the two" });
    expect(parseMcpArgs([...base, "--http", "0", "--jwks-url", "https://auth.example/jwks"])).toMatchObject({ ok: false, error: expect.stringContaining("all three of --jwks-url, --issuer and --audience") });
    expect(parseMcpArgs([...base, "--http", "0", "--allow-origin", "https://app.example/path"])).toMatchObject({ ok: false, error: expect.stringContaining("--allow-origin takes an origin") });
    expect(parseMcpArgs([...base, "--http", "nowhere"])).toMatchObject({ ok: false, error: expect.stringMatching(/^--http takes \[HOST:\]PORT/) });
    expect(parseMcpArgs([...base, "--http", "0", "--max-body-bytes", "0"])).toEqual({ ok: false, error: '--max-body-bytes needs a whole number of at least 1, got "0"' });
  });

  it("fills the HTTP defaults", () => {
    expect(parseMcpArgs([...base, "--http", "[::1]:0", "--allow-origin", "https://a.example", "--allow-origin=https://b.example"])).toEqual({
      ok: true,
      args: {
        help: false,
        workspace: ".",
        http: { listen: { host: "::1", port: 0 }, tokenFiles: [], allowOrigins: ["https://a.example", "https://b.example"], stateless: false, maxSessions: 100, sessionIdleMs: 1_800_000, maxBodyBytes: 4_194_304, graceMs: 10_000 },
      },
    });
  });
});
