/**
 * The scripted server's replies in the Responses API's format: a response object, or its SSE events
 * (`response.created`, `response.in_progress`, per output item `response.output_item.added`, its deltas,
 * `response.output_item.done`, then `response.completed` or `response.incomplete`), each with its
 * `sequence_number`. A step's `thinking` becomes a reasoning item (summary text; encrypted content when
 * the request included `reasoning.encrypted_content`), remembered so the server can check it comes back
 * unchanged (responses-rules.ts). `finishReason` `length` / `content_filter` make the response
 * `incomplete` with `max_output_tokens` / `content_filter`; a step's `refusal` is a refusal content part.
 */
import { createHmac } from "node:crypto";
import type { IssuedReasoning } from "./responses-rules.js";
import { pieces } from "./text-pieces.js";
import type { RecordedRequest, ReplyStep } from "./script.js";

type Item = Record<string, unknown>;

let counter = 0;
const next = (prefix: string) => `${prefix}_scripted_${(counter += 1)}`;

function wantsEncrypted(request: RecordedRequest): boolean {
  const include = request.body?.include;
  return Array.isArray(include) && include.includes("reasoning.encrypted_content");
}

export function responsesOutput(step: ReplyStep, request: RecordedRequest, issued: IssuedReasoning): Item[] {
  const output: Item[] = [];
  if (step.thinking !== undefined) {
    const item: Item = {
      id: next("rs"),
      type: "reasoning",
      summary: step.thinking === "" ? [] : [{ type: "summary_text", text: step.thinking }],
      ...(wantsEncrypted(request) ? { encrypted_content: createHmac("sha256", "scripted").update(step.thinking).digest("base64") } : {}),
    };
    issued.set(String(item.id), JSON.stringify(item));
    output.push(item);
  }
  const text = step.content ?? "";
  if (text !== "" || step.refusal !== undefined) {
    const content = step.refusal !== undefined ? [{ type: "refusal", refusal: step.refusal }] : [{ type: "output_text", text, annotations: [], logprobs: [] }];
    output.push({ id: next("msg"), type: "message", status: "completed", role: "assistant", content });
  }
  for (const call of step.toolCalls ?? []) {
    const args = call.argumentPieces ? call.argumentPieces.join("") : typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    output.push({ id: next("fc"), type: "function_call", status: "completed", call_id: call.id === undefined || call.id === "" ? next("call") : call.id, name: call.name, arguments: args });
  }
  return output;
}

function status(step: ReplyStep): { status: string; incomplete_details: unknown } {
  if (step.finishReason === "length") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (step.finishReason === "content_filter") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

function usage(step: ReplyStep): Record<string, unknown> | null {
  const counts = step.usage === undefined ? { prompt: 10, completion: 5 } : step.usage;
  if (counts === null) return null;
  return {
    input_tokens: counts.prompt,
    input_tokens_details: { cached_tokens: counts.cached ?? 0 },
    output_tokens: counts.completion,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: counts.prompt + counts.completion,
  };
}

export function responseEnvelope(request: RecordedRequest, rest: Record<string, unknown>): Record<string, unknown> {
  return {
    id: next("resp"),
    object: "response",
    created_at: 1_700_000_000,
    model: String(request.body?.model ?? ""),
    error: null,
    incomplete_details: null,
    instructions: request.body?.instructions ?? null,
    parallel_tool_calls: true,
    store: request.body?.store ?? true,
    tools: request.body?.tools ?? [],
    output: [],
    usage: null,
    ...rest,
  };
}

export function responsesBody(step: ReplyStep, request: RecordedRequest, issued: IssuedReasoning): Record<string, unknown> {
  return responseEnvelope(request, { ...status(step), output: responsesOutput(step, request, issued), usage: usage(step) });
}

/** One SSE event of the Responses stream. */
export function responsesEvent(data: Record<string, unknown>, sequence: { n: number }): string {
  const event = { ...data, sequence_number: sequence.n++ };
  return `event: ${String(data.type)}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** The events of a streamed reply. `stream.done: false` leaves out the final `response.completed` (a cut stream). */
export function responsesEvents(step: ReplyStep, request: RecordedRequest, issued: IssuedReasoning): string[] {
  const final = responsesBody(step, request, issued);
  const seq = { n: 0 };
  const inProgress = { ...final, status: "in_progress", output: [], usage: null, incomplete_details: null };
  const events = [responsesEvent({ type: "response.created", response: inProgress }, seq), responsesEvent({ type: "response.in_progress", response: inProgress }, seq)];
  const size = Math.max(1, step.stream?.chunkSize ?? 8);
  (final.output as Item[]).forEach((item, outputIndex) => {
    const push = (data: Record<string, unknown>) => events.push(responsesEvent({ output_index: outputIndex, ...data }, seq));
    if (item.type === "message") {
      push({ type: "response.output_item.added", item: { ...item, status: "in_progress", content: [] } });
      const part = (item.content as Item[])[0] ?? {};
      if (part.type === "output_text") {
        push({ type: "response.content_part.added", item_id: item.id, content_index: 0, part: { ...part, text: "" } });
        for (const piece of pieces(String(part.text), size)) push({ type: "response.output_text.delta", item_id: item.id, content_index: 0, delta: piece, logprobs: [] });
        push({ type: "response.output_text.done", item_id: item.id, content_index: 0, text: part.text, logprobs: [] });
      } else {
        push({ type: "response.content_part.added", item_id: item.id, content_index: 0, part: { type: "refusal", refusal: "" } });
        push({ type: "response.refusal.delta", item_id: item.id, content_index: 0, delta: part.refusal });
        push({ type: "response.refusal.done", item_id: item.id, content_index: 0, refusal: part.refusal });
      }
      push({ type: "response.content_part.done", item_id: item.id, content_index: 0, part });
    } else if (item.type === "function_call") {
      push({ type: "response.output_item.added", item: { ...item, status: "in_progress", arguments: "" } });
      for (const piece of pieces(String(item.arguments), size)) push({ type: "response.function_call_arguments.delta", item_id: item.id, delta: piece });
      push({ type: "response.function_call_arguments.done", item_id: item.id, arguments: item.arguments });
    } else {
      push({ type: "response.output_item.added", item: { ...item, summary: [] } });
    }
    push({ type: "response.output_item.done", item });
  });
  if (step.stream?.done ?? true) events.push(responsesEvent({ type: final.status === "completed" ? "response.completed" : "response.incomplete", response: final }, seq));
  return events;
}

