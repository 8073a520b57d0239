/**
 * One MCP tool `t` of a server `s` offered through the agent's MCP tool set in-process, with no server behind
 * it: each call is answered with the arguments the server would have received, as JSON text, so a test sees
 * what the executor sends, the offered definition and the notices, without starting a process.
 */
import { createMcpToolSet } from "../../src/runtime/mcp-client/mcp-tool-set.js";
import type { ServerConnection, ServerTool } from "../../src/runtime/mcp-client/server-connection.js";
import type { ToolExecutor } from "../../src/runtime/loop/types.js";

export const noLocalTools: ToolExecutor = { definitions: [], execute: () => Promise.resolve({ status: "unknown_tool", content: "none" }) };

const echoingServer: ServerConnection = {
  name: "s",
  start: () => Promise.resolve({ ok: true, tools: [] }),
  call: (_tool, args) => Promise.resolve({ kind: "result", result: { content: [{ type: "text", text: JSON.stringify(args) }] } }),
  toolsSettled: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

/** The tool `t` with `inputSchema` offered as `s__t`: whether it was added, the set, its notices, and a call with given arguments. */
export function offerInProcess(inputSchema: unknown, strict: boolean) {
  const notices: string[] = [];
  const set = createMcpToolSet({ local: noLocalTools, strict, onNotice: (line) => notices.push(line) });
  const added = set.add(echoingServer, [{ name: "t", inputSchema } as ServerTool]);
  const call = (args: unknown) => set.execute({ id: "c1", type: "function", function: { name: "s__t", arguments: JSON.stringify(args) } }, { workspace: "/w", signal: new AbortController().signal });
  return { added, set, notices, call };
}
