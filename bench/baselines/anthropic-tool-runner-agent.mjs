/**
 * The Anthropic rows' baseline, run as a plain `node` process: the Anthropic SDK's own tool loop
 * (`client.beta.messages.toolRunner`) offering the system prompt and tools sigloop offers (offer.mjs), with
 * Ajv validation of every call's input, printing the final answer like the CLI.
 * Usage: node anthropic-tool-runner-agent.mjs <max requests> <stream|plain> "prompt" <offer.json> (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY set).
 */
import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { checkArguments, readOffer, runTool } from "./offer.mjs";

const [maxRequests, mode, prompt, offerFile] = process.argv.slice(2);
const offer = readOffer(offerFile);
const tools = offer.tools.map((tool) =>
  betaTool({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
    run: (args) => {
      checkArguments(tool, args);
      return runTool(tool);
    },
  }),
);
const client = new Anthropic();
const runner = client.beta.messages.toolRunner({
  model: process.env.AGENT_MODEL ?? "claude-sonnet-4-5",
  max_tokens: 8192,
  system: offer.instructions,
  messages: [{ role: "user", content: prompt }],
  tools,
  max_iterations: Number(maxRequests),
  ...(mode === "stream" ? { stream: true } : {}),
});
const final = await runner.runUntilDone();
process.stdout.write(`${final.content.map((block) => (block.type === "text" ? block.text : "")).join("")}\n`);
