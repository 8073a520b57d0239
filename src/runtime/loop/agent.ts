/**
 * The agent loop: ask the model for a turn, run the tools it called, answer every call, repeat until it
 * answers or a limit is reached. The model is untrusted input: whatever a turn holds, the history stays
 * valid for the strictest gateway and the run ends with a `RunResult`, never an exception.
 */
import type { CompactionRecord } from "../compaction/compaction-record.js";
import { contextWindowFor } from "../compaction/context-windows.js";
import { createHistoryCompactor, isContextLengthError, type CompactionOutcome } from "../compaction/history-compactor.js";
import { DEFAULT_TURN_RESULT_CHARS, resultShare, turnResultBudget } from "../compaction/turn-result-budget.js";
import type { AgentEvent, RunResult, ToolCallResult } from "./agent-events.js";
import { interruptedToolResults } from "./interrupted-tool-calls.js";
import { mapLimited } from "./map-limited.js";
import { canonicalJson } from "../../shared/canonical-json.js";
import { addUsage, describeFailure, errorText } from "./run-accounting.js";
import type { AssistantMessage, ChatMessage, ToolCall, ToolMessage } from "./messages.js";
import type { ModelTurn, TokenUsage, ToolContext, ToolExecutor, ToolReport, TurnRequester } from "./types.js";
import { itemsForProvider } from "./tool-result-items.js";
import type { ApprovalRecord } from "../approval/approval-record.js";
import type { ApprovalRequest, ApprovalVerdict } from "../approval/needs-approval.js";
import type { ToolAnnotations } from "../../shared/schemas-file.js";

/** Where each message goes as soon as it exists (the CLI's `--transcript`). */
export interface MessageSink {
  /**
   * Called once per message, in history order, before the loop's next step. Should persist synchronously.
   * If it throws, the sink gets no further messages (so it never holds a history with a gap) and a
   * `transcript_failed` event reports it; the run goes on.
   */
  append(message: ChatMessage): void;
  /**
   * Called once per compaction, after the messages it replaces were appended (the transcript writes it as
   * a line of its own, so that a resume rebuilds the compacted history). Same failure rule as `append`.
   */
  recordCompaction?(record: CompactionRecord): void;
  /** Called when a call is put up for approval and again when it is decided (a line of its own). Same failure rule. */
  recordApproval?(record: ApprovalRecord): void;
}

/** What `beforeToolCall` and `afterToolCall` receive besides the call. */
export interface ToolCallInfo {
  /** The model request (1-based, counted over the whole agent) whose answer holds the call. */
  turn: number;
  /** Aborted when the run is interrupted. */
  signal: AbortSignal;
}

/**
 * Runs before a call is validated and executed.
 * Return nothing to let it run, or `{ block: reason }` to refuse it: the model then reads
 * `Tool call blocked: <reason>` as the call's result and the tool does not run.
 * Must not throw; if it throws anyway the call does not run and the model reads that the hook failed.
 */
export type BeforeToolCall = (call: ToolCall, info: ToolCallInfo) => void | { block: string } | Promise<void | { block: string }>;

/**
 * Runs after a call has a result (also a blocked or failed one), before it is appended to history.
 * Return nothing to keep the result, or a replacement (its `content` is what the model reads).
 * Must not throw; if it throws anyway the model reads that the hook failed instead of the result.
 */
export type AfterToolCall = (
  call: ToolCall,
  result: ToolCallResult,
  info: ToolCallInfo,
) => void | ToolCallResult | Promise<void | ToolCallResult>;

/** What `approve` receives besides the call. */
export interface ApprovalInfo extends ToolCallInfo {
  /** The tool's annotations (`destructiveHint`, `readOnlyHint`, …); `{}` when it declares none. */
  annotations: ToolAnnotations;
  /** For `write_file` and `edit_file`: the change, as a unified diff against the current file. */
  preview?: string;
}

/** `true` runs the call; `false` or `{ deny: reason }` refuses it (the model reads the reason). */
export type ApprovalAnswer = boolean | { deny: string };

/**
 * Decides a call of a tool that needs approval (docs/approval.md), after `beforeToolCall` and validation:
 * `call.function.arguments` are the validated arguments, exactly what will run. If it throws, the call is
 * refused, and the model reads that the approval hook failed.
 */
export type ApproveCall = (call: ToolCall, info: ApprovalInfo) => ApprovalAnswer | Promise<ApprovalAnswer>;

export interface AgentOptions {
  /** One model turn per call (see `createTurnRequester`). */
  requestTurn: TurnRequester;
  executor: ToolExecutor;
  model: string;
  /** Sent first when the history is empty. */
  systemPrompt?: string;
  /** Model requests per `run`, length retries included. Default 10. */
  maxTurns?: number;
  /** How many times a turn cut by the token limit is requested again before giving up. Default 2. */
  maxLengthRetries?: number;
  /** Stream responses (text arrives as `text_delta` events). Default true. */
  stream?: boolean;
  /**
   * The model's context window in tokens: the history is compacted before a request that would not fit it.
   * Default: the built-in table of common models (src/runtime/compaction/context-windows.ts), else unknown
   * (then only the endpoint's refusal of a request as too long starts a compaction).
   */
  contextWindow?: number;
  /** How many tool calls of one turn run at once. Default 16. */
  maxParallelToolCalls?: number;
  /**
   * The characters all tool results of one turn may hold together, shared equally among its calls and cut
   * by the executor. Default 400,000; with a known window, at most half of it (3 characters per token).
   */
  maxTurnResultChars?: number;
  /** The directory tools may touch; passed to each call's context. */
  workspace: string;
  /**
   * A history to continue (a resumed transcript), used as given. If its last assistant message has calls
   * without results, each gets an "interrupted" result (appended to history and the sink) before the next
   * request. These messages are not appended to the sink again.
   */
  history?: readonly ChatMessage[];
  /** Progress. Must not throw; an exception from it is ignored so that reporting cannot break a run. */
  onEvent?: (event: AgentEvent) => void;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  /** Decides each call that needs approval. Without it, every such call is refused. */
  approve?: ApproveCall;
  /**
   * The approval records of a resumed transcript, by call id (the last one of each call): a call of the
   * history still waiting for approval, or refused, is answered as not run rather than as interrupted.
   */
  approvals?: ReadonlyMap<string, ApprovalRecord>;
  transcript?: MessageSink;
}

export interface RunOptions {
  /** Aborting it stops the request in flight or the running tools; the run ends `interrupted`. */
  signal?: AbortSignal;
}

export interface Agent {
  /** Adds `prompt` to the history and loops until an answer or a stop. Never throws. Runs must not overlap. */
  run(prompt: string, options?: RunOptions): Promise<RunResult>;
  /**
   * The history so far, exactly what the next request will send before its new prompt: appended to, and
   * rewritten only by compaction (older tool results elided, older messages summarised).
   */
  readonly messages: readonly ChatMessage[];
}

const DEFAULT_MAX_TURNS = 10;
const DEFAULT_MAX_LENGTH_RETRIES = 2;
const DEFAULT_MAX_PARALLEL_TOOL_CALLS = 16;

export function createAgent(options: AgentOptions): Agent {
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const maxLengthRetries = options.maxLengthRetries ?? DEFAULT_MAX_LENGTH_RETRIES;
  const history: ChatMessage[] = [...(options.history ?? [])];
  const contextWindow = options.contextWindow ?? contextWindowFor(options.model);
  const maxParallel = options.maxParallelToolCalls ?? DEFAULT_MAX_PARALLEL_TOOL_CALLS;
  const turnBudget = turnResultBudget(options.maxTurnResultChars ?? DEFAULT_TURN_RESULT_CHARS, contextWindow);
  let turnsSoFar = 0;

  const emit = (event: AgentEvent): void => {
    try {
      options.onEvent?.(event);
    } catch {
      // A broken progress listener must not break the run.
    }
  };

  let transcript = options.transcript;
  const append = (message: ChatMessage): void => {
    history.push(message);
    if (!transcript) return;
    try {
      transcript.append(message);
    } catch (error) {
      // Writing on after a lost line would leave a gap that a resume would send; stopping here leaves a
      // file that ends like a crash's, which a resume handles.
      transcript = undefined;
      emit({ type: "transcript_failed", error: errorText(error) });
    }
  };

  /** Writes a line that is not a message; a failure ends the transcript as `append`'s does. */
  const recordLine = (write: (sink: MessageSink) => void): void => {
    if (!transcript) return;
    try {
      write(transcript);
    } catch (error) {
      transcript = undefined;
      emit({ type: "transcript_failed", error: errorText(error) });
    }
  };
  const recordCompaction = (record: CompactionRecord): void => recordLine((sink) => sink.recordCompaction?.(record));
  const recordApproval = (record: ApprovalRecord): void => recordLine((sink) => sink.recordApproval?.(record));

  /** The context's `approve` for one call: events and transcript lines around the program's decision. */
  const approverFor = (call: ToolCall, info: ToolCallInfo) => async (request: ApprovalRequest): Promise<ApprovalVerdict> => {
    const tool = request.call.function.name;
    const { turn, signal } = info;
    recordApproval({ approval: { tool_call_id: call.id, tool, state: "asked" } });
    emit({ type: "approval_requested", turn, call: request.call, annotations: request.annotations, ...(request.preview !== undefined ? { preview: request.preview } : {}) });
    const verdict = await decide(request, info);
    // Interrupted while asking: nothing was decided, and the resume says the call never started.
    if (signal.aborted) return verdict;
    const reason = verdict.approved ? undefined : verdict.reason;
    recordApproval({ approval: { tool_call_id: call.id, tool, state: verdict.approved ? "approved" : "denied", ...(reason !== undefined ? { reason } : {}) } });
    emit({ type: "approval_decided", turn, call: request.call, approved: verdict.approved, ...(reason !== undefined ? { reason } : {}) });
    return verdict;
  };

  const decide = async (request: ApprovalRequest, info: ToolCallInfo): Promise<ApprovalVerdict> => {
    if (!options.approve) return { approved: false };
    let answer: unknown;
    try {
      answer = await options.approve(request.call, {
        ...info, annotations: request.annotations, ...(request.preview !== undefined ? { preview: request.preview } : {}),
      });
    } catch (error) {
      return { approved: false, reason: `the approval hook failed (${errorText(error)})` };
    }
    if (answer === true) return { approved: true };
    if (typeof answer === "object" && answer !== null && "deny" in answer) return { approved: false, reason: String(answer.deny) };
    return { approved: false };
  };

  const compactor = createHistoryCompactor({
    contextWindow,
    requestTurn: options.requestTurn,
    model: options.model,
    stream: options.stream ?? true,
    tools: options.executor.definitions,
    history,
    onCompaction: (event, record) => {
      recordCompaction(record);
      emit(event);
    },
  });

  const appendUnprompted = (message: ChatMessage): void => {
    append(message);
    emit({ type: "message", message });
  };

  const answerInterruptedCalls = (): void => {
    const owed = interruptedToolResults(history, options.approvals);
    if (owed.length === 0) return;
    owed.forEach(appendUnprompted);
    emit({ type: "interrupted_calls_answered", toolCallIds: owed.map((message) => message.tool_call_id) });
  };

  const runToolCalls = async (calls: readonly ToolCall[], turn: number, signal: AbortSignal): Promise<boolean> => {
    const info: ToolCallInfo = { turn, signal };
    const maxResultChars = resultShare(turnBudget, calls.length);
    // Calls that need approval run one after the other, in call order, while the others run as usual: the
    // user is asked one question at a time, and each preview shows the file as the call before left it.
    let approvalQueue: Promise<unknown> = Promise.resolve();
    const shared: SharedRuns = new Map();
    const results = await mapLimited(calls, maxParallel, async (call): Promise<ToolCallResult> => {
      if (signal.aborted) return { status: "aborted", content: "" };
      const runCall = async (): Promise<ToolCallResult> => {
        emit({ type: "tool_call_start", turn, call });
        const onReport = (report: ToolReport): void => emit({ type: "tool_report", turn, call, report });
        const result = await runOneToolCall(call, info, maxResultChars, options, approverFor(call, info), shared, onReport);
        emit({ type: "tool_call_end", turn, call, result });
        return result;
      };
      const name: unknown = call?.function?.name;
      if (typeof name !== "string" || options.executor.needsApproval?.(name) !== true) return await runCall();
      const queued = approvalQueue.then(runCall);
      approvalQueue = queued.catch(() => undefined);
      return await queued;
    });
    // On interruption, only the results that came before the first aborted call are real and in order;
    // the rest are left for the resume to answer honestly.
    for (const [index, call] of calls.entries()) {
      const result = results[index];
      if (result === undefined || (signal.aborted && result.status === "aborted")) return false;
      append(toolMessage(call, result, options.requestTurn.toolResultImages ?? []));
    }
    return !signal.aborted;
  };

  const run = async (prompt: string, runOptions: RunOptions = {}): Promise<RunResult> => {
    const signal = runOptions.signal ?? new AbortController().signal;
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    let turns = 0;
    const end = (result: RunResult): RunResult => {
      emit({ type: "run_end", result });
      return result;
    };
    emit({ type: "run_start", prompt });
    answerInterruptedCalls();
    if (history.length === 0 && options.systemPrompt !== undefined) {
      appendUnprompted({ role: "system", content: options.systemPrompt });
    }
    const currentPrompt: ChatMessage = { role: "user", content: prompt };
    appendUnprompted(currentPrompt);
    const stopFor = (outcome: CompactionOutcome): RunResult | undefined => {
      switch (outcome.kind) {
        case "fits":
        case "compacted":
          return undefined;
        case "does_not_fit":
          return { kind: "context_overflow", turns, tokens: outcome.tokens, ...(contextWindow !== undefined ? { contextWindow } : {}), usage };
        case "api_error":
          return { kind: "api_error", turns, error: outcome.error, usage };
        case "interrupted":
          return { kind: "interrupted", turns, usage };
      }
    };

    let lengthRetries = 0;
    while (turns < maxTurns) {
      if (signal.aborted) return end({ kind: "interrupted", turns, usage });
      const fitted = stopFor(await compactor.fitWindow(currentPrompt, signal, usage));
      if (fitted) return end(fitted);
      turns += 1;
      turnsSoFar += 1;
      const turn = turnsSoFar;
      emit({ type: "turn_start", turn, maxTurns });
      let modelTurn: ModelTurn;
      try {
        modelTurn = await options.requestTurn({
          model: options.model,
          messages: [...history],
          tools: options.executor.definitions,
          stream: options.stream ?? true,
          signal,
          onText: (text) => emit({ type: "text_delta", turn, text }),
        });
      } catch (error) {
        if (signal.aborted) return end({ kind: "interrupted", turns, usage });
        if (isContextLengthError(error)) {
          const shrunk = stopFor(await compactor.shrinkAfterRefusal(currentPrompt, signal, usage));
          if (shrunk) return end(shrunk);
          // The request is resent, strictly smaller; a refused request does not count as a turn.
          turns -= 1;
          turnsSoFar -= 1;
          continue;
        }
        return end({ kind: "api_error", turns, error: describeFailure(error), usage });
      }
      addUsage(usage, modelTurn.usage);
      const calls = toolCallsOf(modelTurn.message);
      emit({ type: "turn_end", turn, finishReason: modelTurn.finishReason, usage: modelTurn.usage, toolCalls: calls.length });
      if (signal.aborted) return end({ kind: "interrupted", turns, usage });

      const verdict = judgeTurn(modelTurn.finishReason, calls.length > 0);
      if (verdict === "length") {
        if (lengthRetries >= maxLengthRetries) {
          return end({ kind: "length_exhausted", turns, attempts: lengthRetries + 1, usage });
        }
        lengthRetries += 1;
        emit({ type: "length_retry", turn, attempt: lengthRetries, maxRetries: maxLengthRetries });
        continue;
      }
      if (verdict === "content_filter") return end({ kind: "content_filter", turns, usage });
      // A refusal is not an answer: an empty answer with exit 0 would lose what the model said.
      if (verdict === "answer" && modelTurn.refusal !== undefined && (modelTurn.message.content ?? "") === "") {
        return end({ kind: "refused", refusal: modelTurn.refusal, turns, usage });
      }
      if (verdict === "unknown") return end({ kind: "unknown_finish", turns, finishReason: modelTurn.finishReason, usage });
      lengthRetries = 0;
      append(modelTurn.message);
      if (verdict === "answer") {
        return end({ kind: "answer", answer: modelTurn.message.content ?? "", turns, usage });
      }
      const completed = await runToolCalls(calls, turn, signal);
      if (!completed) return end({ kind: "interrupted", turns, usage });
    }
    return end({ kind: "max_turns", turns, maxTurns, usage });
  };

  return {
    run,
    get messages() {
      return history;
    },
  };
}

type TurnVerdict = "answer" | "tools" | "length" | "content_filter" | "unknown";

function judgeTurn(finishReason: string, hasToolCalls: boolean): TurnVerdict {
  if (finishReason === "length") return "length";
  if (finishReason === "content_filter") return "content_filter";
  if (finishReason === "stop" || finishReason === "tool_calls") return hasToolCalls ? "tools" : "answer";
  return "unknown";
}

function toolCallsOf(message: AssistantMessage): readonly ToolCall[] {
  return "tool_calls" in message ? message.tool_calls : [];
}

/**
 * The result as history keeps it and the model is sent it: with its items when it holds an image of a
 * type the requester sends (`imageTypes`), each other medium a note; else its text alone.
 */
function toolMessage(call: ToolCall, result: ToolCallResult, imageTypes: readonly string[]): ToolMessage {
  const message: ToolMessage = { role: "tool", tool_call_id: call.id, content: result.content };
  if (result.status !== "ok") message.status = result.status;
  const items = result.items && itemsForProvider(result.items, (item) => item.type === "image" && imageTypes.includes(item.mimeType));
  if (items !== undefined) message.items = items;
  return message;
}

async function runOneToolCall(
  call: ToolCall, info: ToolCallInfo, maxResultChars: number, options: AgentOptions, approve: NonNullable<ToolContext["approve"]>, shared: SharedRuns,
  onReport: (report: ToolReport) => void,
): Promise<ToolCallResult> {
  let decision: unknown;
  try {
    decision = await options.beforeToolCall?.(call, info);
  } catch (error) {
    return hookFailure("beforeToolCall", error);
  }
  const result: ToolCallResult = isBlock(decision)
    ? { status: "blocked", content: `Tool call blocked: ${decision.block}` }
    : await executeShared(call, info, maxResultChars, options, approve, shared, onReport);
  if (!options.afterToolCall) return result;
  try {
    return (await options.afterToolCall(call, result, info)) ?? result;
  } catch (error) {
    return hookFailure("afterToolCall", error);
  }
}

function isBlock(decision: unknown): decision is { block: string } {
  return typeof decision === "object" && decision !== null && "block" in decision;
}

/** One turn's runs of read-only, idempotent tools, by tool name and canonical arguments. */
type SharedRuns = Map<string, Promise<ToolCallResult>>;

/**
 * Identical calls of one turn to a tool the executor says may share (read-only and idempotent) run once
 * and each gets the result: 200 `list_files` of one large directory walk it once, not 200 times.
 */
function executeShared(
  call: ToolCall, info: ToolCallInfo, maxResultChars: number, options: AgentOptions, approve: NonNullable<ToolContext["approve"]>, shared: SharedRuns,
  onReport: (report: ToolReport) => void,
): Promise<ToolCallResult> {
  const name = typeof call.function?.name === "string" ? call.function.name : undefined;
  const execute = () => executeSafely(call, { workspace: options.workspace, signal: info.signal, maxResultChars, approve, onReport }, options.executor);
  if (name === undefined || options.executor.sharesIdenticalCalls?.(name) !== true) return execute();
  const args = argumentsKey(call.function.arguments);
  if (args === undefined) return execute();
  const key = `${name}\n${args}`;
  let run = shared.get(key);
  if (run === undefined) {
    // The call that runs reports for all that share it.
    run = execute();
    shared.set(key, run);
  }
  return run;
}

/**
 * Arguments that are equal as JSON share a key whatever their spacing or key order; `undefined` for
 * arguments that are not JSON or nest too deeply to write again (such a call runs on its own).
 */
function argumentsKey(text: unknown): string | undefined {
  try {
    return canonicalJson(typeof text === "string" ? JSON.parse(text) : (text ?? null));
  } catch {
    return undefined;
  }
}

/** The executor promises never to reject; if a custom one does, the call still gets a result. */
async function executeSafely(call: ToolCall, context: ToolContext, executor: ToolExecutor): Promise<ToolCallResult> {
  try {
    return await executor.execute(call, context);
  } catch (error) {
    return { status: "tool_error", content: `The tool could not be run: the executor failed (${errorText(error)}).` };
  }
}

function hookFailure(hook: string, error: unknown): ToolCallResult {
  return {
    status: "hook_error",
    content: `This call produced no result: the agent's ${hook} hook failed (${errorText(error)}). This is not a problem with your arguments.`,
  };
}
