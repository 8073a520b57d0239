/**
 * The MCP client's pure parts: `${VAR}` expansion, the config's checks, the fitted names, the schemas
 * offered and checked, and how a call result reads.
 */
import { describe, expect, it } from "vitest";
import { mapCallResult } from "../../../src/runtime/mcp-client/call-result.js";
import { expandVariables } from "../../../src/runtime/mcp-client/expand-variables.js";
import { parseMcpConfig } from "../../../src/runtime/mcp-client/mcp-config.js";
import { prepareToolSchema } from "../../../src/runtime/mcp-client/tool-schema.js";
import { offeredToolName, TOOL_NAME } from "../../../src/runtime/mcp-client/tool-names.js";

describe("${VAR} expansion", () => {
  const env = { SET: "value", EMPTY: "" };
  it("expands as Claude Code does", () => {
    expect(expandVariables("a-${SET}-b", env)).toEqual({ ok: true, value: "a-value-b" });
    expect(expandVariables("${EMPTY}", env)).toEqual({ ok: true, value: "" });
    expect(expandVariables("${EMPTY:-d}", env)).toEqual({ ok: true, value: "d" });
    expect(expandVariables("${UNSET:-d e}", env)).toEqual({ ok: true, value: "d e" });
    expect(expandVariables("${SET:-d}", env)).toEqual({ ok: true, value: "value" });
    expect(expandVariables("$SET and ${UNSET}", env)).toEqual({ ok: false, variable: "UNSET" });
    expect(expandVariables("$SET", env)).toEqual({ ok: true, value: "$SET" });
  });

  it("a default holding a reference (${A:-${B}}) is not nested: it ends at the first }, as in Claude Code, so a } is left over", () => {
    expect(expandVariables("${SET:-${EMPTY}}", env)).toEqual({ ok: true, value: "value}" });
    expect(expandVariables("${UNSET:-${SET}}", env)).toEqual({ ok: true, value: "${SET}" });
  });
});

describe("the config", () => {
  it("reads stdio and http servers, expands every field it names, infers http from a url", () => {
    const text = JSON.stringify({
      mcpServers: {
        a: { command: "${BIN}/server", args: ["--root", "${ROOT:-/srv}"], env: { TOKEN: "${TOKEN}" }, cwd: "sub" },
        b: { url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
      },
    });
    const parsed = parseMcpConfig("/etc/x/mcp.json", text, { BIN: "/opt", TOKEN: "t", HOST: "example.com" });
    expect(parsed).toEqual({
      ok: true,
      config: {
        file: "/etc/x/mcp.json",
        warnings: [],
        servers: [
          { name: "a", type: "stdio", command: "/opt/server", args: ["--root", "/srv"], env: { TOKEN: "t" }, cwd: "/etc/x/sub" },
          { name: "b", type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer t" } },
        ],
      },
    });
  });

  it("refuses a server with both command and url, a url that is not http(s), an unknown type", () => {
    const error = (server: unknown) => {
      const parsed = parseMcpConfig("m.json", JSON.stringify({ mcpServers: { s: server } }), {});
      return parsed.ok ? undefined : parsed.error;
    };
    expect(error({ command: "x", url: "http://a" })).toBe('m.json: server "s": has "url", but is a stdio server ("command"); remove one of them');
    expect(error({ url: "ftp://a" })).toBe('m.json: server "s": "url" must be an http(s) URL, got "ftp://a"');
    expect(error({ type: "ws", url: "ws://a" })).toBe('m.json: server "s": unknown "type" "ws": use "stdio" or "http"');
    expect(error({ command: "x", args: "y" })).toBe('m.json: server "s": "args" must be an array of strings');
  });
});

describe("names", () => {
  it("joins server and tool, and fits what providers refuse the same way every time", () => {
    expect(offeredToolName("fs", "read_file")).toBe("fs__read_file");
    expect(offeredToolName("my server", "get.thing")).toBe("my_server__get_thing");
    const long = offeredToolName("s", "x".repeat(100));
    expect(long).toMatch(TOOL_NAME);
    expect(long).toHaveLength(64);
    expect(long).toBe(offeredToolName("s", "x".repeat(100)));
    expect(long).not.toBe(offeredToolName("s", "x".repeat(101)));
  });
});

describe("schemas", () => {
  it("offers the schema as listed, without $schema and with properties; checks it closed where it is open by omission", () => {
    const listed = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { opts: { type: "object", properties: { a: { type: "string" } } }, map: { type: "object", additionalProperties: { type: "number" } } },
    };
    const prepared = prepareToolSchema(listed);
    expect(prepared.dialect).toBe("draft-07");
    expect(prepared.offered).toEqual({ type: "object", properties: listed.properties });
    expect(prepared.checked).toEqual({
      type: "object",
      properties: { opts: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false }, map: { type: "object", additionalProperties: { type: "number" } } },
      additionalProperties: false,
      required: [],
    });
    expect(prepareToolSchema({ type: "object" })).toMatchObject({ dialect: "2020-12", offered: { type: "object", properties: {} } });
    expect(prepareToolSchema({ type: "object", allOf: [{ properties: { a: {} } }] }).checked.additionalProperties).toBeUndefined();
  });
});

describe("results", () => {
  it("joins text items, notes the rest, sends structuredContent only without text", () => {
    expect(mapCallResult({ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] })).toEqual({ isError: false, text: "a\nb" });
    expect(mapCallResult({ content: [{ type: "audio", mimeType: "audio/wav", data: "AAAA" }] }).text).toBe("[audio: audio/wav, 3 bytes, not shown]");
    expect(mapCallResult({ content: [{ type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "hello" } }] }).text).toBe(
      "[resource: file:///a.txt, text/plain, 5 characters, not shown]",
    );
    expect(mapCallResult({ content: [{ type: "resource_link", uri: "file:///b", name: "b" }] }).text).toBe("[resource link: file:///b (b)]");
    expect(mapCallResult({ content: [], structuredContent: { t: 1 } }).text).toBe('{"t":1}');
    expect(mapCallResult({ content: [{ type: "text", text: "{\"t\":1}" }], structuredContent: { t: 1 } }).text).toBe('{"t":1}');
    expect(mapCallResult({ content: [] })).toEqual({ isError: false, text: "(no output)" });
    expect(mapCallResult({ isError: true, content: [{ type: "text", text: "no" }] })).toEqual({ isError: true, text: "no" });
  });
});
