/**
 * The MCP per-call benchmark's baseline, run as a plain `node` process: what a user would write with the
 * two SDKs. The MCP SDK's `Client` starts server-everything with its own `StdioClientTransport`, lists
 * its tools and offers `echo` as `everything__echo` to openai-node's `runTools` (streaming), each call's
 * arguments checked with Ajv against the listed `inputSchema` (JSON Schema 2020-12, MCP's default) and
 * sent with `Client.callTool`; the text items are the result. Prints the final answer like the CLI.
 * Usage: node runtools-mcp-agent.mjs <max requests> <server-everything bin> "prompt" (OPENAI_BASE_URL, OPENAI_API_KEY set).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import OpenAI from "openai";

const [maxRequests, serverBin, prompt] = process.argv.slice(2);
const mcp = new Client({ name: "baseline", version: "1.0.0" });
await mcp.connect(new StdioClientTransport({ command: serverBin, args: ["stdio"], stderr: "ignore" }));
const echo = (await mcp.listTools()).tools.find((tool) => tool.name === "echo");
const { $schema: _dialect, ...parameters } = echo.inputSchema;
const ajv = new Ajv2020({ allErrors: true });
const validate = ajv.compile(parameters);
const tool = {
  type: "function",
  function: {
    name: "everything__echo",
    description: echo.description,
    parameters,
    parse(text) {
      const args = JSON.parse(text);
      if (!validate(args)) throw new Error(ajv.errorsText(validate.errors));
      return args;
    },
    async function(args) {
      const result = await mcp.callTool({ name: "echo", arguments: args });
      return result.content.filter((item) => item.type === "text").map((item) => item.text).join("\n");
    },
  },
};
const client = new OpenAI();
const body = { model: process.env.AGENT_MODEL ?? "gpt-4o-mini", messages: [{ role: "user", content: prompt }], tools: [tool], stream: true, stream_options: { include_usage: true } };
const runner = client.chat.completions.runTools(body, { maxChatCompletions: Number(maxRequests) });
process.stdout.write(`${await runner.finalContent()}\n`);
await mcp.close();
