/**
 * The history (messages.ts) as a Responses API request, stateless (`store: false`: the history is sent
 * whole on every request, as with Chat Completions): the leading system messages become `instructions`;
 * user and assistant text become message items; an assistant message first sends its reasoning items
 * exactly as received (their encrypted content lets a reasoning model keep its thread across tool calls),
 * then its text, then one `function_call` per tool call; each tool result is a `function_call_output`
 * paired by `call_id` (a result with images: a list of `input_text` and `input_image` items, in order). Function tools say `strict` explicitly: the API's default is `true`.
 */
import type { FunctionTool, ResponseFunctionCallOutputItem, ResponseInputItem } from "openai/resources/responses/responses";
import type { ChatMessage, ToolResultItem } from "../../loop/messages.js";
import { isToolResultImage, mediaNote } from "../../loop/tool-result-items.js";
import { leadingSystem, partsFor } from "../../loop/provider-parts.js";
import type { ToolDefinition } from "../../../shared/schemas-file.js";

export interface ResponsesRequestParts {
  instructions?: string;
  input: ResponseInputItem[];
  tools?: FunctionTool[];
}

export function responsesRequestParts(history: readonly ChatMessage[], tools: readonly ToolDefinition[]): ResponsesRequestParts {
  const { system: instructions, rest } = leadingSystem(history);
  const input: ResponseInputItem[] = [];
  for (const message of rest) {
    switch (message.role) {
      case "system":
      case "user":
        input.push({ type: "message", role: message.role, content: message.content });
        break;
      case "tool":
        input.push({ type: "function_call_output", call_id: message.tool_call_id, output: message.items !== undefined ? message.items.map(outputItem) : message.content });
        break;
      case "assistant":
        for (const part of partsFor(message, "responses")) input.push(part.item as unknown as ResponseInputItem);
        if (message.content !== null && message.content !== "") input.push({ type: "message", role: "assistant", content: message.content });
        if ("tool_calls" in message) {
          for (const call of message.tool_calls) input.push({ type: "function_call", call_id: call.id, name: call.function.name, arguments: call.function.arguments });
        }
        break;
    }
  }
  return {
    ...(instructions.length > 0 ? { instructions: instructions.join("\n\n") } : {}),
    input,
    ...(tools.length > 0 ? { tools: tools.map(responsesTool) } : {}),
  };
}

export function responsesTool(definition: ToolDefinition): FunctionTool {
  const fn = definition.function;
  return { type: "function", name: fn.name, description: fn.description, parameters: fn.parameters, strict: fn.strict === true };
}

/** An item of a `function_call_output` list: an image as a base64 data URL; a medium the API does not take as its note. */
function outputItem(item: ToolResultItem): ResponseFunctionCallOutputItem {
  if (item.type === "text") return { type: "input_text", text: item.text };
  if (!isToolResultImage(item)) return { type: "input_text", text: mediaNote(item) };
  return { type: "input_image", image_url: `data:${item.mimeType};base64,${item.data}` };
}
