/**
 * A program whose agent uses its own tools and the tools of the MCP servers in `mcp.json` (the
 * `mcpServers` format of Claude Desktop, Claude Code and Cursor). Every call to a server's tool is
 * checked against its `inputSchema` before it is sent, as local calls are. Type-checked with the project.
 */
import { connectMcpServers, createAgent, createToolExecutor, createTurnRequester, loadSchemas, readMcpConfig } from "../src/index.js";

const loaded = loadSchemas("generated/schemas.json");
if (!loaded.ok) throw new Error(loaded.error.message);
const config = readMcpConfig("mcp.json", process.env);
if (!config.ok) throw new Error(config.error);
for (const warning of config.config.warnings) console.error(warning);

const local = createToolExecutor({ schemas: loaded.schemas, schemasDir: "generated" });
// Starts every server in parallel; one that fails is left out (connected.servers.failures says why).
const connected = await connectMcpServers({ config: config.config, local, startTimeoutMs: 30_000, callTimeoutMs: 60_000 });
if (!connected.ok) throw new Error(connected.error); // two tools with one name
const { servers } = connected;
try {
  const agent = createAgent({
    requestTurn: createTurnRequester({ apiKey: process.env.OPENAI_API_KEY ?? "" }),
    executor: servers.executor, // the local tools first, then fs__read_text_file, …
    model: process.env.AGENT_MODEL ?? "gpt-4o-mini",
    workspace: process.cwd(),
    // A tool from a server says where it comes from and what its annotations promise.
    beforeToolCall: (call) => {
      const info = servers.executor.describe?.(call.function.name);
      return info?.origin.kind === "mcp" && info.annotations?.readOnlyHint !== true ? { block: "only read-only server tools here" } : undefined;
    },
  });
  const result = await agent.run("Which notes mention the launch?");
  if (result.kind === "answer") console.log(result.answer);
} finally {
  await servers.close(); // every server, and every process it started
}
