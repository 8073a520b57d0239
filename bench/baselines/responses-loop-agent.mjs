/**
 * The Responses rows' baseline, run as a plain `node` process: a plain loop over `openai.responses.create`
 * (the SDK has no tool loop for it) offering the system prompt and tools sigloop offers (offer.mjs), with
 * Ajv validation of every call's arguments, stateless like sigloop (`store: false`, the whole input sent
 * each time).
 * Usage: node responses-loop-agent.mjs <max requests> <stream|plain> "prompt" <offer.json> (OPENAI_BASE_URL, OPENAI_API_KEY set).
 */
import OpenAI from "openai";
import { checkArguments, readOffer, runTool } from "./offer.mjs";

const [maxRequests, mode, prompt, offerFile] = process.argv.slice(2);
const offer = readOffer(offerFile);
const byName = new Map(offer.tools.map((tool) => [tool.name, tool]));
const tools = offer.tools.map((tool) => ({ type: "function", name: tool.name, description: tool.description, parameters: tool.parameters, strict: false }));
const client = new OpenAI();
const input = [{ type: "message", role: "user", content: prompt }];
for (let request = 0; request < Number(maxRequests); request++) {
  const body = { model: process.env.AGENT_MODEL ?? "gpt-5-mini", input, instructions: offer.instructions, tools, store: false };
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
    let output;
    try {
      const tool = byName.get(call.name);
      if (tool === undefined) throw new Error(`no tool named ${call.name}`);
      checkArguments(tool, JSON.parse(call.arguments));
      output = runTool(tool);
    } catch (error) {
      output = error.message;
    }
    input.push({ type: "function_call_output", call_id: call.call_id, output });
  }
}
