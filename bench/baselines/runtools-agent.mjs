/**
 * The per-turn benchmark's baseline, run as a plain `node` process: openai-node's `runTools` offering the
 * system prompt and tools sigloop offers (offer.mjs), with Ajv validation of every call's arguments, printing
 * the final answer like the CLI.
 * Usage: node runtools-agent.mjs <max requests> <stream|plain> "prompt" <offer.json> (OPENAI_BASE_URL, OPENAI_API_KEY set).
 */
import OpenAI from "openai";
import { checkArguments, readOffer, runTool } from "./offer.mjs";

const [maxRequests, mode, prompt, offerFile] = process.argv.slice(2);
const offer = readOffer(offerFile);
const tools = offer.tools.map((tool) => ({
  type: "function",
  function: {
    ...tool,
    parse(text) {
      const args = JSON.parse(text);
      checkArguments(tool, args);
      return args;
    },
    function: () => runTool(tool),
  },
}));
const client = new OpenAI();
const messages = [{ role: "system", content: offer.instructions }, { role: "user", content: prompt }];
const body = { model: process.env.AGENT_MODEL ?? "gpt-4o-mini", messages, tools };
const runner = mode === "stream"
  ? client.chat.completions.runTools({ ...body, stream: true, stream_options: { include_usage: true } }, { maxChatCompletions: Number(maxRequests) })
  : client.chat.completions.runTools(body, { maxChatCompletions: Number(maxRequests) });
process.stdout.write(`${await runner.finalContent()}\n`);
