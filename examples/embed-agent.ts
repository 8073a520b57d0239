/**
 * Embedding the loop in a program (type-checked with the project, so the docs cannot drift from the API).
 * Run: OPENAI_API_KEY=… npx tsx examples/embed-agent.ts
 */
import OpenAI from "openai";
import { createAgent, createToolExecutor, createTurnRequester, isOpenAIEndpoint, loadSchemas } from "../src/index.js";

const loaded = loadSchemas("generated/schemas.json");
if (!loaded.ok) throw new Error(loaded.error.message);

// The program's own client: its key, endpoint and headers are kept; sigloop adds retries and an idle timeout.
const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY, baseURL: process.env.OPENAI_BASE_URL });
const agent = createAgent({
  requestTurn: createTurnRequester({ client }),
  // Strict tool calling (constrained decoding) where the endpoint is OpenAI's, as the CLI does by default.
  executor: createToolExecutor({ schemas: loaded.schemas, schemasDir: "generated", strict: isOpenAIEndpoint(process.env.OPENAI_BASE_URL) }),
  model: process.env.AGENT_MODEL ?? "gpt-4o-mini",
  systemPrompt: "You are terse.",
  workspace: process.cwd(),
  onEvent: (event) => {
    if (event.type === "tool_call_start") console.error(`→ ${event.call.function.name}`);
  },
  beforeToolCall: (call) => (call.function.name === "list_files" ? { block: "listing is not allowed here" } : undefined),
  afterToolCall: (_call, result) => ({ ...result, content: result.content.replaceAll(process.env.HOME ?? "~", "~") }),
});

const result = await agent.run("What is in README.md?", { signal: AbortSignal.timeout(60_000) });
if (result.kind === "answer") console.log(result.answer);
else console.error(`stopped: ${result.kind}`);
