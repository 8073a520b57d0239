/**
 * MCP servers are untrusted: what one lists, answers and writes must never crash, hang or flood the
 * agent. Each test starts the raw hostile server (test/support/hostile-mcp-server.mjs) through the
 * library API and checks what a user or the model would see: the call's outcome, the lines on stderr,
 * how long it took, what the server was asked.
 */
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { connectMcpServers, type McpServers } from "../../../src/runtime/mcp-client/connect-mcp-servers.js";
import { mapCallResult } from "../../../src/runtime/mcp-client/call-result.js";
import { parseMcpConfig } from "../../../src/runtime/mcp-client/mcp-config.js";
import { offeredToolName, TOOL_NAME } from "../../../src/runtime/mcp-client/tool-names.js";
import type { ToolOutcome } from "../../../src/runtime/loop/types.js";
import { offerInProcess, noLocalTools } from "../../support/in-process-mcp-tool.js";
import { hostileServer, recorded } from "../../support/mcp-fault-server.js";
import { tempDir } from "../../cli/support.js";

const object = (properties: Record<string, unknown> = {}) => ({ type: "object", properties });
const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, description: `${name}.`, inputSchema: object(), ...extra });

interface Started {
  servers: McpServers;
  notices: string[];
  stderr: string[];
  record: string;
}

const open: McpServers[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((servers) => servers.close()));
});

async function start(script: Record<string, unknown>, options: { callTimeoutMs?: number; startTimeoutMs?: number; strict?: boolean } = {}): Promise<Started> {
  const record = path.join(tempDir(), "record.jsonl");
  const parsed = parseMcpConfig("mcp.json", JSON.stringify({ mcpServers: { h: hostileServer(script, record) } }), {});
  if (!parsed.ok) throw new Error(parsed.error);
  const notices: string[] = [];
  const stderr: string[] = [];
  const connected = await connectMcpServers({
    config: parsed.config,
    local: noLocalTools,
    strict: options.strict ?? false,
    callTimeoutMs: options.callTimeoutMs ?? 5_000,
    startTimeoutMs: options.startTimeoutMs ?? 10_000,
    onNotice: (line) => notices.push(line),
    onServerStderr: (_server, line) => stderr.push(line),
  });
  if (!connected.ok) throw new Error(connected.error);
  open.push(connected.servers);
  return { servers: connected.servers, notices, stderr, record };
}

function call(servers: McpServers, name: string, args: unknown = {}): Promise<ToolOutcome> {
  return servers.executor.execute({ id: "c", type: "function", function: { name, arguments: JSON.stringify(args) } }, { workspace: process.cwd(), signal: new AbortController().signal });
}

describe("an answer larger than the client reads", () => {
  for (const idFirst of [false, true]) {
    it(`a result over 10 MB (its id ${idFirst ? "before" : "after"} the result) fails that call with the size; the agent and the server go on`, async () => {
      const { servers } = await start({ tools: [tool("huge"), tool("small")], calls: { huge: { textBytes: 12 * 1024 * 1024, idFirst } } });
      const outcome = await call(servers, "h__huge");
      expect(outcome.status).toBe("tool_error");
      const words = /^The tool h__huge has no result: its MCP server "h" answered with (\d+) bytes, more than the 10485760 sigloop reads of one answer, so the answer was dropped\. Ask it for less \(a part, a page, a smaller file\)\.$/;
      expect(outcome.content).toMatch(words);
      // The whole line (the JSON around the text too), though no more than its ends was ever held.
      const bytes = Number(words.exec(outcome.content)![1]);
      expect(bytes - 12 * 1024 * 1024).toBeGreaterThan(40);
      expect(bytes - 12 * 1024 * 1024).toBeLessThan(100);
      expect(await call(servers, "h__small")).toEqual({ status: "ok", content: "ok" });
    });
  }

  it("a result just under the limit arrives whole, in time linear in its size", async () => {
    const { servers } = await start({ tools: [tool("big")], calls: { big: { textBytes: 9 * 1024 * 1024 } } });
    const began = Date.now();
    const outcome = await call(servers, "h__big");
    expect(outcome.status).toBe("ok");
    expect(outcome.content.startsWith("aaaa")).toBe(true);
    expect(Date.now() - began).toBeLessThan(3_000);
  });
});

describe("a tool's outputSchema", () => {
  it("one that does not compile leaves the server's tools listed and callable", async () => {
    const { servers, notices } = await start({
      tools: [tool("good"), tool("odd", { outputSchema: { type: "object", properties: { n: { type: "numbr" } } } })],
      calls: { odd: { result: { content: [{ type: "text", text: "{\"n\":1}" }], structuredContent: { n: 1 } } } },
    });
    expect(notices).toEqual([]);
    expect(servers.executor.definitions.map((definition) => definition.function.name)).toEqual(["h__good", "h__odd"]);
    expect(await call(servers, "h__odd")).toEqual({ status: "ok", content: '{"n":1}' });
  });

  it("two tools with one $id in their outputSchemas leave the server's tools listed", async () => {
    const schema = { $id: "urn:same", type: "object" };
    const { servers } = await start({ tools: [tool("a", { outputSchema: schema }), tool("b", { outputSchema: schema })] });
    expect(servers.executor.definitions.map((definition) => definition.function.name)).toEqual(["h__a", "h__b"]);
  });

  it("a backtracking pattern and the structuredContent that trips it cannot hold the agent", async () => {
    const { servers } = await start({
      tools: [tool("trap", { outputSchema: { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } } })],
      calls: { trap: { result: { content: [{ type: "text", text: "trapped" }], structuredContent: { s: `${"a".repeat(27)}!` } } } },
    });
    const began = Date.now();
    expect(await call(servers, "h__trap")).toEqual({ status: "ok", content: "trapped" });
    expect(Date.now() - began).toBeLessThan(1_000);
  });
});

describe("notifications/tools/list_changed", () => {
  it("a server that says its tools changed after every listing cannot hold a call past its time, nor flood the lines", async () => {
    const { servers, notices, record } = await start({ tools: [tool("poke")], storm: true, calls: { poke: { listChanged: 50 } } }, { callTimeoutMs: 1_500 });
    const began = Date.now();
    const outcome = await call(servers, "h__poke");
    expect(Date.now() - began).toBeLessThan(2_500);
    expect(outcome).toEqual({ status: "ok", content: "ok" });
    // The list never changes: no line says it did.
    expect(notices).toEqual([]);
    // Fifty notices at once are one more listing, not fifty at a time.
    const lists = recorded(record).filter((entry) => entry.method === "tools/list").length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = recorded(record).filter((entry) => entry.method === "tools/list").length;
    expect(lists).toBeGreaterThan(1);
    expect(later - lists).toBeLessThan(50);
  });
});

describe("a server started again after it stopped", () => {
  const stoppedMessage = 'The tool h__crash has no result: its MCP server "h" stopped during the call. It may or may not have run; the next call starts the server again.';

  it("that lists other tools now: the new list is offered from the next request on, with one line", async () => {
    const { servers, notices } = await start({ tools: [tool("crash"), tool("a")], restartTools: [tool("crash"), tool("a"), tool("b")], calls: { crash: { exit: 1 } } });
    expect(servers.executor.definitions.map((definition) => definition.function.name)).toEqual(["h__crash", "h__a"]);
    expect(await call(servers, "h__crash")).toEqual({ status: "tool_error", content: stoppedMessage });
    expect(await call(servers, "h__a")).toEqual({ status: "ok", content: "ok" });
    expect(notices).toEqual(['mcp: server "h" changed its tools (3 now); the new list is offered from the next request on']);
    expect(servers.executor.definitions.map((definition) => definition.function.name)).toEqual(["h__crash", "h__a", "h__b"]);
    expect(await call(servers, "h__b")).toEqual({ status: "ok", content: "ok" });
  });

  it("that lists the same tools: the list stays the same array and no line is printed", async () => {
    const { servers, notices } = await start({ tools: [tool("crash"), tool("a")], calls: { crash: { exit: 1 } } });
    const before = servers.executor.definitions;
    expect(await call(servers, "h__crash")).toEqual({ status: "tool_error", content: stoppedMessage });
    expect(await call(servers, "h__a")).toEqual({ status: "ok", content: "ok" });
    expect(notices).toEqual([]);
    expect(servers.executor.definitions).toBe(before);
  });
});

describe("inputSchemas that could hold or stop the agent", () => {
  it("one nested thousands of levels deep leaves that tool out with a line; the server's other tools are offered", async () => {
    const { servers, notices } = await start({ deepTool: { name: "deep", depth: 2_500 }, tools: [tool("fine")] });
    expect(servers.executor.definitions.map((definition) => definition.function.name)).toEqual(["h__fine"]);
    expect(notices).toEqual(['mcp: tool "h__deep" of server "h" is left out: its inputSchema could not be read (Maximum call stack size exceeded)']);
  });

  it("in strict mode, a member whose schema is a string is offered lenient with the reason, not a crash", async () => {
    const { added, notices, call: callT, set } = offerInProcess({ type: "object", properties: { a: "string" } }, true);
    expect(added).toEqual({ ok: true });
    expect(set.definitions[0]!.function.strict).toBe(false);
    expect(notices).toEqual([
      `mcp: tool "s__t" is offered with strict: false in strict mode: parameter "a" has the string "string" as its schema, not a JSON Schema object, which strict mode cannot express; the model's arguments are still validated`,
    ]);
    expect(await callT({ a: "x" })).toEqual({ status: "ok", content: '{"a":"x"}' });
  });

  it("in strict mode, a nested member whose schema is not an object keeps the tool lenient, naming where, instead of leaving the member out of the strict form", () => {
    const { set, notices } = offerInProcess({ type: "object", properties: { opts: { type: "object", properties: { n: { type: "number" }, any: true } } } }, true);
    expect(set.definitions[0]!.function.strict).toBe(false);
    expect(set.definitions[0]!.function.parameters.properties).toEqual({ opts: { type: "object", properties: { n: { type: "number" }, any: true } } });
    expect(notices).toEqual([
      `mcp: tool "s__t" is offered with strict: false in strict mode: parameter "opts" at opts.any has true as its schema, not a JSON Schema object, which strict mode cannot express; the model's arguments are still validated`,
    ]);
  });

  it.each([
    [{ anyOf: ["string"] }, 'parameter "a" has the string "string" as a branch of its anyOf'],
    [{ oneOf: [true, { type: "string" }] }, 'parameter "a" has true as a branch of its oneOf'],
    [{ type: "array", items: "string" }, 'parameter "a" at a[] has the string "string" as its schema'],
    [{ type: "array", items: true }, 'parameter "a" at a[] has true as its schema'],
    [{ type: "array", prefixItems: [{ type: "number" }, "string"] }, 'parameter "a" at a[1] has the string "string" as its schema'],
  ])("in strict mode, a union branch or array element %j that is not an object keeps the tool lenient (never an empty anyOf or an array without items)", (schema, where) => {
    const { set, notices } = offerInProcess({ type: "object", properties: { a: schema } }, true);
    expect(set.definitions[0]!.function.strict).toBe(false);
    expect(notices).toEqual([
      `mcp: tool "s__t" is offered with strict: false in strict mode: ${where}, not a JSON Schema object, which strict mode cannot express; the model's arguments are still validated`,
    ]);
  });

  it("in strict mode, a false branch is left out of the strict form (it matches nothing), and false items still bound the length", () => {
    const { set, notices } = offerInProcess({ type: "object", properties: { a: { anyOf: [false, { type: "string" }] }, b: { type: "array", prefixItems: [{ type: "string" }], items: false } }, required: ["a", "b"] }, true);
    expect(notices).toEqual([]);
    expect(set.definitions[0]!.function.parameters.properties).toEqual({ a: { anyOf: [{ type: "string" }] }, b: { type: "array", items: { type: "string" }, maxItems: 1 } });
  });

  it("property: in strict mode, any JSON a server lists as a member's schema is offered (strict or with a reason) and never throws", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 4 }), (properties) => {
        const { added, set, notices } = offerInProcess({ type: "object", properties }, true);
        expect(added).toEqual({ ok: true });
        const offered = set.definitions[0]!.function;
        if (offered.strict === false) expect(notices).toHaveLength(1);
        else expect(offered.strict).toBe(true);
      }),
      { examples: [[{ a: "string" }], [{ a: 7 }], [{ a: null }], [{ a: [] }], [{ a: { type: "object", properties: { b: "x" } } }]] },
    );
  });

  it("one with more patterns than compile in a moment is an error result at once, naming the count", async () => {
    const properties = Object.fromEntries(Array.from({ length: 4_000 }, (_, i) => [`p${i}`, { type: "string", pattern: `^x${i}$` }]));
    const { call: callT } = offerInProcess({ type: "object", properties }, false);
    const began = Date.now();
    expect(await callT({ p1: "x1" })).toEqual({
      status: "tool_error",
      content:
        'The parameters schema of s__t, as the MCP server "s" lists it, could not be compiled (it holds 4000 patterns; sigloop compiles a server\'s schema of at most 500, so that compiling it, which cannot be stopped, cannot hold the agent); the tool cannot be called until the server offers a valid one. The other tools still work.',
    });
    expect(Date.now() - began).toBeLessThan(1_000);
  });
});

describe("tools/list pagination", () => {
  it("a cursor repeated forever, or one that grows with every page, keeps the tools listed so far with one line", async () => {
    const repeated = await start({ pages: [[tool("a")], [tool("b")]], cursor: "repeat" });
    expect(repeated.servers.executor.definitions.map((definition) => definition.function.name)).toEqual(["h__a", "h__b"]);
    expect(repeated.notices).toEqual(['mcp: server "h" sent the same tools/list cursor twice; its tools from there on are left out']);
    const growing = await start({ pages: [[tool("a")]], cursor: "grow" });
    expect(growing.servers.executor.definitions).toHaveLength(100);
    expect(growing.notices).toEqual(['mcp: server "h" lists its tools over more than 100 pages; the tools after page 100 are left out']);
  });
});

describe("stdout and stderr", () => {
  it("non-JSON lines on stdout are skipped; a 10 MB stderr line without a break arrives in pieces; invalid UTF-8 becomes U+FFFD", async () => {
    const { servers, stderr } = await start({ tools: [tool("t")], stdoutNoise: "Listening on port 3000 \u001b[32mready", stderrLine: { text: "x", times: 10 * 1024 * 1024 }, stderrBase64: Buffer.from([0x66, 0xff, 0x6f, 0x0a]).toString("base64") });
    expect(await call(servers, "h__t")).toEqual({ status: "ok", content: "ok" });
    const deadline = Date.now() + 5_000;
    while (stderr.at(-1) !== "f\ufffdo" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stderr.length).toBe(Math.ceil((10 * 1024 * 1024) / 4000) + 1);
    expect(Math.max(...stderr.map((line) => line.length))).toBe(4000);
    expect(stderr.at(-1)).toBe("f\ufffdo");
  });
});

describe("names a server chooses", () => {
  it("property: every tool name, with any server name, is offered under a name providers accept, the same on every run", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), fc.string({ unit: "binary", maxLength: 1200 }), (server, name) => {
        const offered = offeredToolName(server, name);
        expect(offered).toMatch(TOOL_NAME);
        expect(offeredToolName(server, name)).toBe(offered);
      }),
      { examples: [["", ""], ["s", "\u001b[31mred"], ["s", "a".repeat(1000)], ["s", "ｆｓ"], ["a", "b__c"]] },
    );
  });
});

describe("images a server sends", () => {
  const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]).toString("base64");
  const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1]).toString("base64");
  const image = (mimeType: string, data: string) => ({ type: "image", mimeType, data });

  it("an image/png whose bytes are a JPEG, or junk, reaches the model as a one-line note; a real PNG is sent on as the image", async () => {
    const { servers } = await start({
      tools: [tool("shots")],
      calls: { shots: { result: { content: [{ type: "text", text: "three shots" }, image("image/png", JPEG), image("image/png", Buffer.from("not an image at all").toString("base64")), image("image/png", PNG)] } } },
    });
    expect(await call(servers, "h__shots")).toEqual({
      status: "ok",
      content: `three shots\n[image: image/png, its bytes are not a PNG image but a JPEG one, not shown]\n[image: image/png, its bytes are not a PNG image, not shown]\n[image: image/png, ${Buffer.from(PNG, "base64").length} bytes, not shown]`,
      items: [
        { type: "text", text: "three shots" },
        { type: "text", text: "[image: image/png, its bytes are not a PNG image but a JPEG one, not shown]" },
        { type: "text", text: "[image: image/png, its bytes are not a PNG image, not shown]" },
        { type: "image", mimeType: "image/png", data: PNG },
      ],
    });
  });

  it("each type the APIs take is sent on when its bytes begin as that type's do, and is a note (empty data included) when they do not", () => {
    const gif = Buffer.from("GIF89a\x01\x00\x01\x00", "latin1").toString("base64");
    const webp = Buffer.from("RIFF\x24\x00\x00\x00WEBPVP8 ", "latin1").toString("base64");
    for (const [mimeType, data] of [["image/png", PNG], ["image/jpeg", JPEG], ["image/gif", gif], ["image/webp", webp]] as const) {
      expect(mapCallResult({ content: [image(mimeType, data)] }).items).toEqual([image(mimeType, data)]);
    }
    expect(mapCallResult({ content: [image("image/jpeg", PNG)] }).text).toBe("[image: image/jpeg, its bytes are not a JPEG image but a PNG one, not shown]");
    expect(mapCallResult({ content: [image("image/webp", gif)] }).text).toBe("[image: image/webp, its bytes are not a WebP image but a GIF one, not shown]");
    expect(mapCallResult({ content: [image("image/gif", "")] }).text).toBe("[image: image/gif, its bytes are not a GIF image, not shown]");
    // A type no API takes in a tool result is never sent, so its bytes are not judged.
    expect(mapCallResult({ content: [image("image/svg+xml", PNG)] }).items).toEqual([image("image/svg+xml", PNG)]);
  });

  it("an image whose data is not base64 is a note: the model's API would refuse the request", () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]).toString("base64");
    expect(mapCallResult({ content: [{ type: "image", mimeType: "image/png", data: png }] }).items).toEqual([{ type: "image", mimeType: "image/png", data: png }]);
    expect(mapCallResult({ content: [{ type: "image", mimeType: "image/png", data: "not base64 at all!" }] })).toEqual({
      isError: false,
      text: "[image: image/png, its data is not base64, not shown]",
    });
  });
});
