// CI, in a fresh project where the packed sigloop is installed (cwd): `sigloop mcp` answers an MCP client's
// initialize and tools/list over stdio (one JSON-RPC message per line) with the project's generated tools.
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

const expected = ["get_time", "list_files", "read_file"];
const child = spawn(path.resolve("node_modules/.bin/sigloop"), ["mcp", "--workspace", "."], { stdio: ["pipe", "pipe", "inherit"] });
const replies = new Map();
const waiting = new Map();
createInterface({ input: child.stdout }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  replies.set(message.id, message);
  waiting.get(message.id)?.(message);
});
const request = (id, method, params = {}) => {
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  return replies.has(id) ? Promise.resolve(replies.get(id)) : new Promise((resolve) => waiting.set(id, resolve));
};
const timeout = setTimeout(() => {
  console.error("CI: sigloop mcp did not answer within 30 s");
  child.kill();
  process.exit(1);
}, 30_000);
await request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "ci", version: "1.0.0" } });
child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
const list = await request(2, "tools/list");
clearTimeout(timeout);
child.stdin.end();
const code = await new Promise((resolve) => child.on("close", resolve));
const names = (list.result?.tools ?? []).map((tool) => tool.name).sort();
if (JSON.stringify(names) !== JSON.stringify(expected) || code !== 0) {
  console.error(`CI: sigloop mcp tools/list gave ${JSON.stringify(names)} (exit ${code}), expected ${JSON.stringify(expected)}`);
  process.exit(1);
}
console.log(`CI: installed package: sigloop mcp listed ${names.join(", ")} over stdio`);
