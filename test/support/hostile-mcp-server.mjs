#!/usr/bin/env node
// A raw MCP server over stdio (no SDK, so it can break the protocol as an untrusted server may), driven by
// the JSON script in $HOSTILE_SCRIPT (test/support/mcp-fault-server.ts `hostileServer` writes it):
//   tools          the tools it lists (one page)
//   deepTool       { name, depth }: one more tool, its inputSchema objects nested `depth` levels deep
//   pages          instead: the pages of tools/list; `cursor` "repeat" sends one cursor forever, "grow" a longer one each page
//   stderr         written to stderr at start (`stderrBase64`: raw bytes, for invalid UTF-8; `stderrLine`:
//                  { text, times }, that text repeated without a break, then one)
//   stdoutNoise    a non-JSON line written to stdout before every answer
//   storm          after each tools/list answer, sends notifications/tools/list_changed again
//   calls          per tool name: { result } answered as is, { textBytes, idFirst } a text result of that
//                  many bytes streamed out in chunks (id after the result, as the TypeScript SDK writes it, or
//                  before it, as the Python SDK does), { listChanged: n } answers "ok" after n list_changed,
//                  { exit: code } exits without answering, { echo: true } answers the arguments it received as JSON text
//   restartTools   the tools it lists instead when $RECORD_FILE shows an earlier start (an initialize)
// Every request's method is appended to $RECORD_FILE (when set) as a JSON line.
import { appendFileSync, existsSync, readFileSync } from "node:fs";

const script = JSON.parse(process.env.HOSTILE_SCRIPT ?? "{}");
const record = (entry) => process.env.RECORD_FILE && appendFileSync(process.env.RECORD_FILE, `${JSON.stringify(entry)}\n`);
const restarted = process.env.RECORD_FILE !== undefined && existsSync(process.env.RECORD_FILE) && readFileSync(process.env.RECORD_FILE, "utf8").includes('"method":"initialize"');
if (restarted && script.restartTools !== undefined) script.tools = script.restartTools;

if (script.stderr !== undefined) process.stderr.write(script.stderr);
if (script.stderrLine !== undefined) process.stderr.write(`${script.stderrLine.text.repeat(script.stderrLine.times)}\n`);
if (script.stderrBase64 !== undefined) process.stderr.write(Buffer.from(script.stderrBase64, "base64"));

/** Writes `text` in pieces, waiting whenever the pipe is full, so a huge answer never sits in our memory. */
async function writeOut(text) {
  if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once("drain", resolve));
}

async function send(message) {
  if (script.stdoutNoise !== undefined) await writeOut(`${script.stdoutNoise}\n`);
  await writeOut(`${JSON.stringify(message)}\n`);
}

async function sendHugeText(id, bytes, idFirst) {
  const head = idFirst ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"` : `{"result":{"content":[{"type":"text","text":"`;
  const tail = idFirst ? `"}]}}\n` : `"}]},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`;
  await writeOut(head);
  const piece = "a".repeat(1 << 16);
  for (let written = 0; written < bytes; written += piece.length) await writeOut(piece.slice(0, Math.min(piece.length, bytes - written)));
  await writeOut(tail);
}

/** The tool as JSON text, written by hand: JSON.stringify itself runs out of stack at such depths. */
function deepToolText({ name, depth }) {
  return `{"name":${JSON.stringify(name)},"inputSchema":${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${"}}".repeat(depth)}}`;
}

function toolsPage(cursor) {
  if (script.pages === undefined) return { tools: script.tools ?? [] };
  const index = cursor === undefined ? 0 : cursor === "again" ? 1 : Number(String(cursor).split(":")[0]);
  const page = script.cursor === "grow" ? script.pages[0].map((tool) => ({ ...tool, name: `${tool.name}${index}` })) : script.pages[Math.min(index, script.pages.length - 1)];
  const next = script.cursor === "repeat" ? "again" : script.cursor === "grow" ? `${index + 1}:${"x".repeat(index * 100)}` : index + 1 < script.pages.length ? String(index + 1) : undefined;
  return { tools: page, ...(next !== undefined ? { nextCursor: next } : {}) };
}

async function answer(message) {
  const { id, method, params } = message;
  record({ method });
  if (method === "initialize") {
    return send({ jsonrpc: "2.0", id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: "hostile", version: "1.0.0" } } });
  }
  if (method === "tools/list" && script.deepTool !== undefined) {
    const others = (script.tools ?? []).map((tool) => `,${JSON.stringify(tool)}`).join("");
    return writeOut(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"tools":[${deepToolText(script.deepTool)}${others}]}}\n`);
  }
  if (method === "tools/list") {
    await send({ jsonrpc: "2.0", id, result: toolsPage(params?.cursor) });
    if (script.storm === true) await send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    return;
  }
  if (method === "tools/call") {
    const behaviour = script.calls?.[params.name] ?? {};
    if (behaviour.textBytes !== undefined) return sendHugeText(id, behaviour.textBytes, behaviour.idFirst === true);
    if (behaviour.exit !== undefined) process.exit(behaviour.exit);
    if (behaviour.echo === true) return send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: JSON.stringify(params.arguments ?? {}) }] } });
    for (let i = 0; i < (behaviour.listChanged ?? 0); i++) await send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    return send({ jsonrpc: "2.0", id, result: behaviour.result ?? { content: [{ type: "text", text: "ok" }] } });
  }
  if (id !== undefined) return send({ jsonrpc: "2.0", id, result: {} });
}

let pending = "";
let queue = Promise.resolve();
process.stdin.setEncoding("utf8");
process.stdin.on("data", (text) => {
  pending += text;
  let newline;
  while ((newline = pending.indexOf("\n")) !== -1) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    if (line.trim() === "") continue;
    const message = JSON.parse(line);
    queue = queue.then(() => answer(message));
  }
});
