/**
 * The script a scripted server plays and the record it keeps of each request: the types its tests, its
 * renderers and its rule checkers share, in a module of their own so that none of them imports the server.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { ChatRequestBody, Dialect, StatusFault } from "./wire-shapes.js";

/** One tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** Omitted: no `id` field at all; `""`: an empty id (both quirks seen in the wild). */
  id?: string;
  name: string;
  /** A string as the API sends it, or an object to simulate providers that send `arguments` as an object. */
  arguments: string | Record<string, unknown>;
  /** Streaming only: send the (string) arguments exactly as these pieces, overriding `StreamShape.chunkSize`. */
  argumentPieces?: string[];
}

/** How a streamed reply is cut into SSE chunks, and which provider quirks it shows. */
export interface StreamShape {
  /** Characters of content and of each tool call's arguments per chunk (default 8). */
  chunkSize?: number;
  /** Tool-call deltas carry no `index` (a new `id` opens a call, no id continues the last one). */
  omitIndex?: boolean;
  /** The tool call's id arrives on its second delta instead of the first. */
  lateId?: boolean;
  /** The tool call's name arrives on its second delta instead of the first. */
  lateName?: boolean;
  /**
   * Where usage goes when the request asked for it (`stream_options.include_usage`):
   * `"separate"` (default, like OpenAI): a final chunk with `choices: []`; `"final"`: on the finish chunk;
   * `"none"`: not sent.
   */
  usage?: "separate" | "final" | "none";
  /** Send `data: [DONE]` at the end (default true). */
  done?: boolean;
}

/** A normal completion. Every field is optional: `{}` is an empty assistant answer. */
export interface ReplyStep {
  content?: string | null;
  toolCalls?: ScriptedToolCall[];
  /**
   * Default: `tool_calls` when there are tool calls, else `stop`. `null` sends no finish reason at all
   * (in a stream: no finish chunk). Any string is sent as is, to simulate unknown reasons.
   */
  finishReason?: string | null;
  /**
   * Default `{ prompt: 10, completion: 5 }`; `null` sends no usage. `prompt` counts every input token;
   * `cached` of them were read from the prompt cache, `cacheWritten` (Anthropic) written to it.
   */
  usage?: { prompt: number; completion: number; cached?: number; cacheWritten?: number } | null;
  /**
   * The model's reasoning: an Anthropic `thinking` block (when the request enabled thinking, signed), a
   * Responses `reasoning` item (its summary; encrypted content when included). Chat Completions ignores it.
   */
  thinking?: string;
  /** Anthropic only: a `redacted_thinking` block with this data (when the request enabled thinking). */
  redactedThinking?: string;
  /** Responses only: a refusal content part instead of text. */
  refusal?: string;
  /**
   * Extra fields put on the response message (non-streaming) or the first delta (streaming). Default
   * `{ refusal: null, annotations: [] }`, as OpenAI sends: a client that echoes them back gets a 400.
   */
  extraMessageFields?: Record<string, unknown>;
  stream?: StreamShape;
  /** Wait this long before sending the response headers. */
  delayMs?: number;
}

/**
 * A response that breaks:
 * - `reset`: the connection is reset before any response;
 * - `cut`: headers and part of the body (of `reply`, default a short text answer), then the connection is reset;
 * - `stall`: headers and part of the body, then nothing, ever (until the client gives up or the server closes);
 * - `malformed-sse`: a stream whose second event is not JSON (non-streaming requests get a non-JSON body);
 * - `not-json`: 200 with an HTML body (for streaming requests too: no SSE at all);
 * - `no-choices`: 200 with `choices: []` (streaming: only chunks with empty choices);
 * - `error-event`: 200, then an OpenAI-style `{ "error": … }` instead of a completion (streaming: after the
 *   first events, as providers do when a model fails mid-generation).
 */
export interface BrokenResponseFault {
  fault: "reset" | "cut" | "stall" | "malformed-sse" | "not-json" | "no-choices" | "error-event";
  /** For `cut`, `stall` and `error-event`: what the partial body is taken from. */
  reply?: ReplyStep;
  /** For `cut`, `stall` and `error-event` in a stream: how many SSE events go out before it breaks (default 2). */
  afterEvents?: number;
}

/**
 * A 200 response that never ends: after the headers (and, in a stream, the first event) something arrives
 * every `everyMs` (default 50), so no idle timeout fires: an SSE comment (`comment`, default) or a content
 * delta of `deltaChars` characters (`delta`, default 1; a flood with large ones). Non-streaming requests
 * get the start of a JSON body followed by whitespace, forever. It stops when the client goes away.
 */
export interface EndlessFault {
  fault: "endless";
  send?: "comment" | "delta";
  everyMs?: number;
  deltaChars?: number;
}

export type FaultStep = StatusFault | BrokenResponseFault | EndlessFault;
export type ScriptStep = ReplyStep | FaultStep;

/** A list of steps taken one per request, or a function choosing the step for each request. */
export type Script = readonly ScriptStep[] | ((request: RecordedRequest, index: number) => ScriptStep);

/** Plays a script: a list's steps in turn, once each (`undefined` past its end), or a function's step for each request. */
export class ScriptPlayer {
  private used = 0;

  constructor(readonly script: Script) {}

  take(request: RecordedRequest): ScriptStep | undefined {
    if (typeof this.script === "function") return this.script(request, request.index);
    const step = this.script[this.used];
    if (step !== undefined) this.used += 1;
    return step;
  }

  /** The list steps not yet taken; a function has no end. */
  get remaining(): number {
    return typeof this.script === "function" ? Infinity : this.script.length - this.used;
  }
}

/** One request as the server received it. */
export interface RecordedRequest {
  /** 0-based order of arrival. */
  index: number;
  /** The API the request spoke (its path). */
  dialect: Dialect;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** 0-based order of the connection the request came on: requests on one kept-alive connection share it. */
  connection: number;
  /** The parsed JSON body (`undefined` if it was not JSON). */
  body: ChatRequestBody | undefined;
  rawBody: string;
  /** Why the server answered 400 (empty when the request was accepted). */
  violations: string[];
  /** Suspicious but accepted, e.g. the tools list changed within a conversation. */
  flags: string[];
  /** Refused as longer than `contextLimit` (no script step was used). */
  refusedForLength?: boolean;
}
