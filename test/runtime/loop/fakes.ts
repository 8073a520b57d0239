import type { ToolDefinition } from "../../../src/shared/schemas-file.js";
import type { AssistantMessage, ChatMessage, ToolCall } from "../../../src/runtime/loop/messages.js";
import type { ModelTurn, TurnRequest, ToolContext, ToolExecutor, ToolOutcome } from "../../../src/runtime/loop/types.js";

export const definitions: ToolDefinition[] = [
  { type: "function", function: { name: "echo", description: "Echo.", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } } },
];

export function call(id: string, name = "echo", args = '{"text":"hi"}'): ToolCall {
  return { id, type: "function", function: { name, arguments: args } };
}

export function toolTurn(...calls: ToolCall[]): ModelTurn {
  const [first, ...rest] = calls;
  if (!first) throw new Error("toolTurn needs a call");
  return { message: { role: "assistant", content: null, tool_calls: [first, ...rest] }, finishReason: "tool_calls", usage: { promptTokens: 10, completionTokens: 2, cachedTokens: 4 } };
}

export function answerTurn(content: string): ModelTurn {
  return { message: { role: "assistant", content }, finishReason: "stop", usage: { promptTokens: 10, completionTokens: 3 } };
}

export function turnWith(message: AssistantMessage, finishReason: string): ModelTurn {
  return { message, finishReason };
}

/** A requester that plays `turns` in order and records every request (a copy of its messages). */
export function scriptedRequester(turns: Array<ModelTurn | Error | ((request: TurnRequest) => Promise<ModelTurn>)>) {
  const requests: Array<{ messages: ChatMessage[]; tools: readonly ToolDefinition[] }> = [];
  let next = 0;
  const requestTurn = async (request: TurnRequest): Promise<ModelTurn> => {
    requests.push({ messages: structuredClone([...request.messages]), tools: request.tools });
    const step = turns[next];
    next += 1;
    if (step === undefined) throw new Error("the script ran out of turns");
    if (step instanceof Error) throw step;
    if (typeof step === "function") return step(request);
    return structuredClone(step);
  };
  return { requestTurn, requests };
}

/** An executor whose tool answers `result:<id>` after `behaviour` (default: at once). */
export function fakeExecutor(behaviour?: (call: ToolCall, context: ToolContext) => Promise<ToolOutcome>): ToolExecutor & { calls: ToolCall[] } {
  const calls: ToolCall[] = [];
  return {
    definitions,
    calls,
    async execute(toolCall, context) {
      calls.push(toolCall);
      if (behaviour) return behaviour(toolCall, context);
      return { status: "ok", content: `result:${toolCall.id}` };
    },
  };
}

/** Checks what a strict gateway checks: each assistant's calls answered once, in order, right after it. */
export function historyProblems(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < messages.length; i += 1) {
    const message = messages[i]!;
    if (message.role === "assistant") {
      const keys = Object.keys(message).sort().join(",");
      if (keys !== "content,role" && keys !== "content,role,tool_calls") problems.push(`assistant keys ${keys}`);
      if (!("tool_calls" in message)) {
        if (typeof message.content !== "string") problems.push(`content null without calls at ${i}`);
        continue;
      }
      const ids = message.tool_calls.map((c) => c.id);
      const answers = messages.slice(i + 1, i + 1 + ids.length).map((m) => (m.role === "tool" ? m.tool_call_id : `<${m.role}>`));
      if (answers.join() !== ids.join()) problems.push(`calls ${ids.join()} answered by ${answers.join()} at ${i}`);
    } else if (message.role === "tool") {
      const owner = messages.slice(0, i).reverse().find((m) => m.role !== "tool");
      if (!owner || owner.role !== "assistant" || !("tool_calls" in owner)) problems.push(`orphan tool message at ${i}`);
    }
  }
  return problems;
}
