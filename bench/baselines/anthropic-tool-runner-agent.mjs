/**
 * The Anthropic rows' baseline, run as a plain `node` process: the Anthropic SDK's own tool loop
 * (`client.beta.messages.toolRunner`) with Ajv validation of every call's input and the `get_time` tool of
 * runtools-agent.mjs, printing the final answer like the CLI.
 * Usage: node anthropic-tool-runner-agent.mjs <max requests> <stream|plain> "prompt" (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY set).
 */
import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { Ajv } from "ajv";
import { getTimeText } from "./get-time.mjs";

const [maxRequests, mode, prompt] = process.argv.slice(2);
const ajv = new Ajv({ allErrors: true });
const inputSchema = { type: "object", properties: {}, additionalProperties: false };
const validate = ajv.compile(inputSchema);
const getTime = betaTool({
  name: "get_time",
  description: "Get the current local date and time.",
  inputSchema,
  run: (args) => {
    if (!validate(args)) throw new Error(ajv.errorsText(validate.errors));
    return getTimeText();
  },
});
const client = new Anthropic();
const runner = client.beta.messages.toolRunner({
  model: process.env.AGENT_MODEL ?? "claude-sonnet-4-5",
  max_tokens: 8192,
  messages: [{ role: "user", content: prompt }],
  tools: [getTime],
  max_iterations: Number(maxRequests),
  ...(mode === "stream" ? { stream: true } : {}),
});
const final = await runner.runUntilDone();
process.stdout.write(`${final.content.map((block) => (block.type === "text" ? block.text : "")).join("")}\n`);
