/**
 * Rebuilds one response from streamed Chat Completions chunks. Chunks are untrusted provider output, read
 * field by field: tool-call deltas are joined by `index`, falling back to `id` when a provider sends no
 * index (a new id opens a call, no id continues the last one), and ids and names may arrive on any delta.
 */

/** A response as the provider described it, before normalization (see `normalizeTurn`). */
export interface RawTurn {
  content: string | null;
  /** OpenAI's `refusal`: the model declined; not content, and never sent back (strict gateways refuse it). */
  refusal: string;
  toolCalls: RawToolCall[];
  /** `null`: the provider never said. */
  finishReason: string | null;
  usage: unknown;
}

export interface RawToolCall {
  id: string;
  name: string;
  /** Joined argument text; an object sent instead of a string is kept as an object (see `normalizeTurn`). */
  arguments: unknown;
}

export class StreamAssembler {
  private content = "";
  private refusal = "";
  private finishReason: string | null = null;
  private usage: unknown = undefined;
  private readonly calls: RawToolCall[] = [];
  private readonly byIndex = new Map<number, RawToolCall>();
  /** Whether any chunk carried a choice (a stream of only `choices: []` chunks has no answer). */
  sawChoice = false;

  /**
   * Adds one parsed chunk; returns the text it adds to the content (for progress display), if any.
   * Throws `TypeError` for a chunk that is not a JSON object.
   */
  add(chunk: unknown): string | undefined {
    if (!isRecord(chunk)) throw new TypeError("a stream chunk is not a JSON object");
    if (isRecord(chunk.usage)) this.usage = chunk.usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice: unknown = choices.find((c: unknown) => isRecord(c) && (c.index === 0 || c.index === undefined));
    if (!isRecord(choice)) return undefined;
    this.sawChoice = true;
    if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") this.finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (!isRecord(delta)) return undefined;
    if (Array.isArray(delta.tool_calls)) {
      for (const callDelta of delta.tool_calls) if (isRecord(callDelta)) this.addToolCallDelta(callDelta);
    }
    if (typeof delta.refusal === "string") this.refusal += delta.refusal;
    if (typeof delta.content === "string" && delta.content !== "") {
      this.content += delta.content;
      return delta.content;
    }
    return undefined;
  }

  result(): RawTurn {
    return { content: this.content, refusal: this.refusal, toolCalls: this.calls, finishReason: this.finishReason, usage: this.usage };
  }

  private addToolCallDelta(delta: Record<string, unknown>): void {
    const call = this.callFor(delta);
    const id = typeof delta.id === "string" ? delta.id : "";
    if (id !== "" && call.id === "") call.id = id;
    const fn = isRecord(delta.function) ? delta.function : {};
    if (typeof fn.name === "string" && fn.name !== "" && call.name === "") call.name = fn.name;
    const args = fn.arguments;
    // An empty piece carries nothing; it must not replace arguments that came whole as an object.
    if (typeof args === "string" && args !== "") {
      call.arguments = typeof call.arguments === "string" ? call.arguments + args : args;
    } else if (typeof args !== "string" && args !== undefined && args !== null) {
      call.arguments = typeof call.arguments === "string" && call.arguments !== "" ? call.arguments + JSON.stringify(args) : args;
    }
  }

  private callFor(delta: Record<string, unknown>): RawToolCall {
    const id = typeof delta.id === "string" ? delta.id : "";
    const last = this.calls[this.calls.length - 1];
    if (typeof delta.index === "number") {
      const known = this.byIndex.get(delta.index);
      // Some providers reuse one index for parallel calls; a different id then means a different call.
      if (known !== undefined && !(id !== "" && known.id !== "" && known.id !== id)) return known;
      const opened = this.open();
      this.byIndex.set(delta.index, opened);
      return opened;
    }
    if (id !== "") return this.calls.find((call) => call.id === id) ?? this.open();
    return last ?? this.open();
  }

  private open(): RawToolCall {
    const call: RawToolCall = { id: "", name: "", arguments: "" };
    this.calls.push(call);
    return call;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
