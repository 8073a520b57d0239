/**
 * The contracts between the runtime's parts: the model client (one turn of the model), the tool executor
 * (one tool call), and the loop that joins them. Each part's promises are written on its type.
 */
import type { ToolAnnotations, ToolDefinition } from "../../shared/schemas-file.js";
import type { ApprovalRequest, ApprovalVerdict } from "../approval/needs-approval.js";
import type { AssistantMessage, ChatMessage, ToolCall, ToolResultItem } from "./messages.js";
import type { LogLevel, ToolReport } from "../execution/tool-reports.js";

/** Why the model stopped. Anything a provider invents arrives as `{ unknown: string }`-free plain text. */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | (string & {});

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the provider's prefix cache, when the API reports them. */
  cachedTokens?: number;
}

/** One completed model response, already normalized into a message a strict gateway accepts. */
export interface ModelTurn {
  message: AssistantMessage;
  /**
   * `tool_calls` whenever the message holds tool calls and the provider said `stop` or nothing;
   * otherwise the provider's own reason (`length`, `content_filter`, or an unknown string).
   */
  finishReason: FinishReason;
  /** The model's refusal text (OpenAI's `refusal` field), when it declined instead of answering. */
  refusal?: string;
  usage?: TokenUsage;
}

export interface TurnRequest {
  model: string;
  messages: readonly ChatMessage[];
  /** Sent as given, same order and bytes on every request, so provider prefix caches keep hitting. */
  tools: readonly ToolDefinition[];
  stream: boolean;
  signal: AbortSignal;
  /** Streamed text as it arrives (for progress only: never taken as the answer before the turn completes). */
  onText?: (delta: string) => void;
}

/**
 * Asks the model for one turn. Rejects only with a `ModelRequestError` (see client). Must not retry
 * `length`. `toolResultImages`: the requester sends a tool result's images of these MIME types to the
 * model (absent: none; each image or audio item then reaches the model as a one-line note).
 */
export type TurnRequester = ((request: TurnRequest) => Promise<ModelTurn>) & { readonly toolResultImages?: readonly string[] };

/** What became of one tool call. `content` is exactly the tool message's content the model will read. */
export interface ToolOutcome {
  /** `denied`: the call needed approval and did not get it; the tool did not run. */
  status: "ok" | "invalid_arguments" | "unknown_tool" | "tool_error" | "timeout" | "aborted" | "denied";
  content: string;
  /** A result that holds images or audio: its items in order; `content` is then their text (notes for the media). */
  items?: ToolResultItem[];
}

export type { ToolReport } from "../execution/tool-reports.js";

/** What a tool call runs with; tools read it through `toolContext()`, never through parameters. */
export interface ToolContext {
  /** The real path of the workspace root. */
  workspace: string;
  /** Aborted when the call times out or the user interrupts. */
  signal: AbortSignal;
  /**
   * The most characters of this call's result the model will read. The loop sets it to the call's share of
   * the turn's result budget; a tool sees the smaller of that and the executor's cap (the executor cuts the
   * result there, with its note), so it may stop producing output there, with a note of its own.
   */
  maxResultChars?: number;
  /**
   * Asked, after validation and before the tool runs, for each call of a tool that needs approval
   * (needs-approval.ts); the tool runs only when it resolves approved. Without it no approval is asked
   * (`sigloop mcp`: its client decides); the agent always gives one.
   */
  approve?: (request: ApprovalRequest) => Promise<ApprovalVerdict>;
  /**
   * Receives what the tool reports while it runs (`ToolReport`), already filtered: progress that does
   * not increase is dropped, and none arrives after the call's result. Without it reports go nowhere.
   */
  onReport?: (report: ToolReport) => void;
}

/** What `toolContext()` gives a tool: its call's context, and the means to report while it runs. */
export interface ToolCallContext extends ToolContext {
  /**
   * Reports progress: `done` so far, of `total` when known (MCP's raw counts, not a percentage), with an
   * optional message. A value not larger than the last one reported is dropped, and at most one report
   * per 50 ms goes out (the newest one, once the 50 ms have passed; the last is sent before the result).
   */
  progress(done: number, total?: number, message?: string): void;
  /** Logs a line at one of MCP's levels; the logger is the tool's name. */
  log(level: LogLevel, message: string): void;
}

/** Where a tool offered to the model comes from: a function of the schemas file, or an MCP server's tool. */
export type ToolOrigin = { kind: "local" } | { kind: "mcp"; server: string; tool: string };

/**
 * What is known about a tool besides its definition, for whatever runs before a call (an approval step):
 * its origin and its MCP annotations (a local tool's from its JSDoc tags, a server's as it lists them).
 */
export interface ToolInfo {
  origin: ToolOrigin;
  annotations?: ToolAnnotations;
}

export interface ToolExecutor {
  /**
   * The tool definitions to send, in the schemas file's order. Read before every request: the same array
   * (same bytes) each time, unless the tools changed (an MCP server's `list_changed`).
   */
  readonly definitions: readonly ToolDefinition[];
  /** Whether calls of this tool ask `context.approve` before they run (known from the name alone). */
  needsApproval?(name: string): boolean;
  /** Runs one call. Never rejects: every failure is an outcome whose content the model can act on. */
  execute(call: ToolCall, context: ToolContext): Promise<ToolOutcome>;
  /** The origin and annotations of an offered tool; undefined for a name not offered. */
  describe?(name: string): ToolInfo | undefined;
  /**
   * Whether identical calls of one turn to this tool may share one run (the tool is declared read-only
   * and idempotent: `@readOnly` and `@idempotent`). Absent: every call runs.
   */
  sharesIdenticalCalls?(name: string): boolean;
}
