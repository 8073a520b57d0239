/**
 * The name a server's tool is offered under: `<server>__<tool>`. Providers accept only
 * `^[a-zA-Z0-9_-]{1,64}$`, so a name that does not fit is made to, the same way on every run: each other
 * character becomes `_`; a name still longer than 64 keeps its first 55 characters, then `_` and the first
 * 8 hex digits of the SHA-256 of the whole unfitted `<server>__<tool>` (so two long names that share a
 * start stay apart). Two tools that end up with one name, or one that takes a local tool's name, are an
 * error naming the name and both origins.
 */
import { createHash } from "node:crypto";
import type { ToolOrigin } from "../loop/types.js";

export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;
const KEPT = 55;

export function offeredToolName(server: string, tool: string): string {
  const joined = `${server}__${tool}`;
  const fitted = joined.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (fitted.length <= MAX) return fitted;
  const hash = createHash("sha256").update(joined).digest("hex").slice(0, 8);
  return `${fitted.slice(0, KEPT)}_${hash}`;
}

function describeOrigin(origin: ToolOrigin): string {
  return origin.kind === "local" ? "a local tool" : `tool ${JSON.stringify(origin.tool)} of MCP server ${JSON.stringify(origin.server)}`;
}

export function clashMessage(name: string, first: ToolOrigin, second: ToolOrigin): string {
  return `two tools would be offered as ${name}: ${describeOrigin(first)} and ${describeOrigin(second)}. Rename the server in the --mcp file (or the local tool) so the names differ.`;
}
