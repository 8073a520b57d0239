/**
 * The per-turn benchmark's baseline, run as a plain `node` process: openai-node's `runTools` with Ajv
 * validation of every call's arguments and a `get_time` tool giving what tools/get_time.ts gives (local
 * ISO time with its offset, then the zone's name, worked out once), printing the final answer like the CLI.
 * Usage: node runtools-agent.mjs <max requests> <stream|plain> "prompt" (OPENAI_BASE_URL, OPENAI_API_KEY set).
 */
import { Ajv } from "ajv";
import OpenAI from "openai";
import { getTimeText } from "./get-time.mjs";

const [maxRequests, mode, prompt] = process.argv.slice(2);
const ajv = new Ajv({ allErrors: true });
const parameters = { type: "object", properties: {}, additionalProperties: false };
const validate = ajv.compile(parameters);
const getTime = {
  type: "function",
  function: {
    name: "get_time",
    description: "Get the current local date and time.",
    parameters,
    parse(text) {
      const args = JSON.parse(text);
      if (!validate(args)) throw new Error(ajv.errorsText(validate.errors));
      return args;
    },
    function: () => getTimeText(),
  },
};
const client = new OpenAI();
const body = { model: process.env.AGENT_MODEL ?? "gpt-4o-mini", messages: [{ role: "user", content: prompt }], tools: [getTime] };
const runner = mode === "stream"
  ? client.chat.completions.runTools({ ...body, stream: true, stream_options: { include_usage: true } }, { maxChatCompletions: Number(maxRequests) })
  : client.chat.completions.runTools(body, { maxChatCompletions: Number(maxRequests) });
process.stdout.write(`${await runner.finalContent()}\n`);
