/**
 * The Responses rows' baseline, run as a plain `node` process: a plain loop over `openai.responses.create`
 * (the SDK has no tool loop for it) with Ajv validation of every call's arguments and the `get_time` tool
 * of runtools-agent.mjs, stateless like sigloop (`store: false`, the whole input sent each time).
 * Usage: node responses-loop-agent.mjs <max requests> <stream|plain> "prompt" (OPENAI_BASE_URL, OPENAI_API_KEY set).
 */
import { Ajv } from "ajv";
import OpenAI from "openai";
import { getTimeText } from "./get-time.mjs";

const [maxRequests, mode, prompt] = process.argv.slice(2);
const ajv = new Ajv({ allErrors: true });
const parameters = { type: "object", properties: {}, additionalProperties: false };
const validate = ajv.compile(parameters);
const tools = [{ type: "function", name: "get_time", description: "Get the current local date and time.", parameters, strict: false }];
const client = new OpenAI();
const input = [{ type: "message", role: "user", content: prompt }];
for (let request = 0; request < Number(maxRequests); request++) {
  const body = { model: process.env.AGENT_MODEL ?? "gpt-5-mini", input, tools, store: false };
  let response;
  if (mode === "stream") {
    for await (const event of await client.responses.create({ ...body, stream: true })) if (event.type === "response.completed") response = event.response;
  } else {
    response = await client.responses.create(body);
  }
  const calls = response.output.filter((item) => item.type === "function_call");
  if (calls.length === 0) {
    process.stdout.write(`${response.output_text ?? response.output.flatMap((item) => (item.type === "message" ? item.content.map((part) => part.text ?? "") : [])).join("")}\n`);
    break;
  }
  for (const call of calls) {
    input.push({ type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments });
    const args = JSON.parse(call.arguments);
    const output = validate(args) ? getTimeText() : `invalid arguments: ${ajv.errorsText(validate.errors)}`;
    input.push({ type: "function_call_output", call_id: call.call_id, output });
  }
}
