/**
 * The history (messages.ts) as a Responses API request, stateless (`store: false`: the history is sent
 * whole on every request, as with Chat Completions): the leading system messages become `instructions`;
 * user and assistant text become message items; an assistant message first sends its reasoning items
 * exactly as received (their encrypted content lets a reasoning model keep its thread across tool calls),
 * then its text, then one `function_call` per tool call; each tool result is a `function_call_output`
 * paired by `call_id` (a result with images: a list of `input_text` and `input_image` items, in order). Function tools say `strict` explicitly: the API's default is `true`.
 * The body is written as JSON text here, not left to the SDK (see `ResponsesBodyWriter`).
 */
import type { FunctionTool, ResponseFunctionCallOutputItem, ResponseInputItem } from "openai/resources/responses/responses";
import type { ChatMessage, ToolResultItem } from "../../loop/messages.js";
import { isToolResultImage, mediaNote } from "../../loop/tool-result-items.js";
import { leadingSystem, partsFor } from "../../loop/provider-parts.js";
import type { ToolDefinition } from "../../../shared/schemas-file.js";
import { listWireCache, messageWireCache } from "../wire-cache.js";

/** What a request says besides the history and the tools, in the order the body holds it. */
export interface ResponsesBodySettings {
  model: string;
  stream: boolean;
  /** `reasoning.effort` (with `summary: "auto"`); absent: not sent. */
  reasoningEffort?: "low" | "medium" | "high";
  /** `max_output_tokens`; absent: not sent. */
  maxTokens?: number;
}

/**
 * The request body as JSON text: exactly `JSON.stringify` of `{ model, input, instructions?, tools?,
 * store: false, include, reasoning?, max_output_tokens?, stream }`, but each message's items and the tool
 * definitions are serialised once (wire-cache.ts) and joined on later requests.
 */
export class ResponsesBodyWriter {
  private readonly messages = messageWireCache((message) => JSON.stringify(responsesInputItems(message)).slice(1, -1));
  private readonly tools = listWireCache((tools: readonly ToolDefinition[]) => JSON.stringify(tools.map(responsesTool)));

  text(history: readonly ChatMessage[], tools: readonly ToolDefinition[], settings: ResponsesBodySettings): string {
    const { system: instructions, rest } = leadingSystem(history);
    const items: string[] = [];
    for (const message of rest) {
      const text = this.messages.wireOf(message);
      if (text !== "") items.push(text);
    }
    const tail = {
      store: false,
      include: ["reasoning.encrypted_content"],
      ...(settings.reasoningEffort !== undefined ? { reasoning: { effort: settings.reasoningEffort, summary: "auto" } } : {}),
      ...(settings.maxTokens !== undefined ? { max_output_tokens: settings.maxTokens } : {}),
      stream: settings.stream,
    };
    return (
      `{"model":${JSON.stringify(settings.model)},"input":[${items.join(",")}]` +
      (instructions.length > 0 ? `,"instructions":${JSON.stringify(instructions.join("\n\n"))}` : "") +
      (tools.length > 0 ? `,"tools":${this.tools.wireOf(tools)}` : "") +
      `,${JSON.stringify(tail).slice(1)}`
    );
  }
}

/** One message's input items (none for an assistant message without text, tool calls or reasoning). */
export function responsesInputItems(message: ChatMessage): ResponseInputItem[] {
  switch (message.role) {
    case "system":
    case "user":
      return [{ type: "message", role: message.role, content: message.content }];
    case "tool":
      return [{ type: "function_call_output", call_id: message.tool_call_id, output: message.items !== undefined ? message.items.map(outputItem) : message.content }];
    case "assistant": {
      const items = partsFor(message, "responses").map((part) => part.item as unknown as ResponseInputItem);
      if (message.content !== null && message.content !== "") items.push({ type: "message", role: "assistant", content: message.content });
      if ("tool_calls" in message) {
        for (const call of message.tool_calls) items.push({ type: "function_call", call_id: call.id, name: call.function.name, arguments: call.function.arguments });
      }
      return items;
    }
  }
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
