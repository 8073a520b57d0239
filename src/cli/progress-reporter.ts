/**
 * Turns agent events into progress lines on stderr: the turn, each tool call with its arguments
 * shortened, what a running tool reports (`  … name progress 2/3: message`, `  … name warning: message`;
 * log lines at `info` and above), each result shortened, retries, streamed text and token usage (with
 * cached tokens).
 * Colours only when the output is a terminal and NO_COLOR is unset. Text from the model, tools or the
 * endpoint has the key masked first (a streamed answer through a carry-over window, so a key split across
 * deltas is caught), is shortened after that, and shows control characters escaped. On a terminal, the
 * streamed text of a response discarded for `length` is redrawn struck through (replaced by a note
 * without colours): it is not part of the answer.
 */
import { keyMask, type KeyMask } from "../runtime/model/key-mask.js";
import type { AgentEvent, CompactionEvent, RunResult, ToolCallResult } from "../runtime/loop/agent-events.js";
import type { TokenUsage, ToolReport } from "../runtime/loop/types.js";
import { logLevelPasses } from "../runtime/execution/tool-reports.js";
import { escapeControls } from "./terminal-safe.js";

export interface ProgressOutput {
  write(text: string): void;
}

/** The terminal the progress is drawn on, when it is one: its width tells how many rows a text took. */
export interface ProgressTerminal {
  columns: number;
}

export interface ProgressReporter {
  onEvent(event: AgentEvent): void;
  /** A line of its own (ends any streamed text first). */
  line(text: string): void;
  /** For the model client's retries of a failed request. */
  retry(message: string): void;
}

const NAME_WIDTH = 64;
const ARGUMENTS_WIDTH = 160;
const RESULT_WIDTH = 200;

type Paint = (text: string) => string;

/** Colours on a terminal, or when FORCE_COLOR asks for them (a parent piping our output); never with NO_COLOR. */
export function colorsWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0";
  return forced || stream.isTTY === true;
}

export function createProgressReporter(output: ProgressOutput, colors: boolean, mask: KeyMask = keyMask(""), terminal?: ProgressTerminal): ProgressReporter {
  const style = (code: number): Paint => (colors ? (text) => `\u001b[${code}m${text}\u001b[0m` : (text) => text);
  const dim = style(2);
  const bold = style(1);
  const red = style(31);
  const yellow = style(33);
  const cyan = style(36);
  let midLine = false;
  // What this turn drew on the terminal after its `turn` line: the streamed text, then the tokens line.
  let turnText = "";
  let tokensLine: string | undefined;
  const streamed = mask.stream((text) => {
    const visible = escapeControls(text);
    turnText += visible;
    output.write(dim(visible));
  });
  // Masked before it is shortened: a cut key would no longer match the whole key.
  const shown = (text: string, width: number): string => escapeControls(shorten(mask.scrub(text), width));
  // For whole lines that quote the endpoint or the model (API errors, refusals, ids).
  const safe = (text: string): string => escapeControls(mask.scrub(text));

  const line = (text: string): void => {
    streamed.flush();
    output.write(`${midLine ? "\n" : ""}${text}\n`);
    midLine = false;
  };

  const endStreamedText = (): void => {
    streamed.flush();
    if (midLine) output.write("\n");
    midLine = false;
  };

  const onEvent = (event: AgentEvent): void => {
    switch (event.type) {
      case "turn_start":
        line(bold(`turn ${event.turn}`) + dim(` (at most ${event.maxTurns} per prompt)`));
        turnText = "";
        tokensLine = undefined;
        return;
      case "text_delta":
        if (event.text === "") return;
        streamed.write(event.text);
        midLine = !event.text.endsWith("\n");
        return;
      case "turn_end":
        endStreamedText();
        if (event.usage) {
          tokensLine = `  tokens: ${usageText(event.usage)}`;
          line(dim(tokensLine));
        }
        return;
      case "length_retry":
        endStreamedText();
        if (terminal !== undefined && turnText !== "") redrawDiscarded(terminal.columns);
        line(yellow(`  the response was cut off by the token limit (finish_reason "length"): discarded, its tool calls not run; asking again (retry ${event.attempt} of ${event.maxRetries})`));
        return;
      case "tool_call_start":
        line(cyan(`  → ${shown(event.call.function.name, NAME_WIDTH)}`) + dim(`(${shown(event.call.function.arguments, ARGUMENTS_WIDTH)})`));
        return;
      case "tool_call_end":
        line(resultLine(shown(event.call.function.name, NAME_WIDTH), event.result.status, shown(event.result.content, RESULT_WIDTH), red));
        return;
      case "tool_report": {
        const text = reportText(shown(event.call.function.name, NAME_WIDTH), event.report, (message) => shown(message, RESULT_WIDTH));
        if (text === undefined) return;
        const level = event.report.kind === "log" ? event.report.level : "info";
        line(logLevelPasses(level, "error") ? red(text) : logLevelPasses(level, "warning") ? yellow(text) : dim(text));
        return;
      }
      case "approval_decided": {
        const name = shown(event.call.function.name, NAME_WIDTH);
        const reason = event.reason === undefined ? "" : `: ${shown(event.reason, RESULT_WIDTH)}`;
        line(event.approved ? dim(`  ${name} approved`) : yellow(`  ${name} not approved${reason}`));
        return;
      }
      case "interrupted_calls_answered":
        line(yellow(`resume: ${event.toolCallIds.length} tool call(s) of the interrupted run had no result; answered as "interrupted" (${safe(event.toolCallIds.join(", "))})`));
        return;
      case "transcript_failed":
        line(red(`warning: the transcript could not be written (${safe(event.error)}); it stops at the last complete message and --resume continues from there, without this run's later messages.`));
        return;
      case "compaction":
        line(yellow(`  ${compactionText(event)}`));
        return;
      case "run_end":
        line(dim(`${runSummary(event.result)} · tokens: ${usageText(event.result.usage)}`));
        return;
      case "run_start":
      case "message":
      case "approval_requested":
        return;
    }
  };

  /**
   * Moves up over the discarded text and the tokens line, clears to the end of the screen and draws them
   * again: the text struck through, or with no colours a note in its place.
   */
  const redrawDiscarded = (columns: number): void => {
    const rows = rowsOf(turnText, columns) + (tokensLine === undefined ? 0 : rowsOf(tokensLine, columns));
    const text = turnText.endsWith("\n") ? turnText.slice(0, -1) : turnText;
    const replacement = colors
      ? text.split("\n").map((part) => `\u001b[2;9m${part}\u001b[0m`).join("\n")
      : `[discarded: ${Array.from(text).length} characters cut off by the token limit, not part of the answer]`;
    output.write(`\u001b[${rows}F\u001b[J${replacement}\n${tokensLine === undefined ? "" : `${dim(tokensLine)}\n`}`);
    turnText = "";
  };

  return { onEvent, line: (text) => line(safe(text)), retry: (message) => line(yellow(`  retrying: ${safe(message)}`)) };
}

/** The terminal rows `text` fills at `columns` wide, its last line ended (code points count as one column). */
function rowsOf(text: string, columns: number): number {
  const lines = (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
  return lines.reduce((rows, part) => rows + Math.max(1, Math.ceil(Array.from(part).length / Math.max(1, columns))), 0);
}

function compactionText(event: CompactionEvent): string {
  const what =
    event.step === "elide"
      ? `elided ${event.messages} older tool result${event.messages === 1 ? "" : "s"} (calling the tool again brings one back)`
      : `summarised ${event.messages} older message${event.messages === 1 ? "" : "s"} into one`;
  const why =
    event.reason === "refused"
      ? "the endpoint refused the request as too long"
      : `the request would not fit the context window of ${event.contextWindow ?? "?"} tokens`;
  return `compacted the history: ${what}, because ${why}; about ${event.tokensBefore} → ${event.tokensAfter} tokens (estimated)`;
}

/** A report as its line; `undefined` for a log line below `info`. */
function reportText(name: string, report: ToolReport, shownMessage: (message: string) => string): string | undefined {
  if (report.kind === "log") return logLevelPasses(report.level, "info") ? `  … ${name} ${report.level}: ${shownMessage(report.message)}` : undefined;
  const count = report.total === undefined ? `${report.progress}` : `${report.progress}/${report.total}`;
  return `  … ${name} progress ${count}${report.message === undefined || report.message === "" ? "" : `: ${shownMessage(report.message)}`}`;
}

function resultLine(name: string, status: ToolCallResult["status"], content: string, red: Paint): string {
  const text = `  ← ${name} ${status}: ${content}`;
  return status === "ok" ? text : red(text);
}

function runSummary(result: RunResult): string {
  const turns = `${result.turns} turn${result.turns === 1 ? "" : "s"}`;
  return result.kind === "answer" ? `answered after ${turns}` : `stopped (${result.kind}) after ${turns}`;
}

function usageText(usage: TokenUsage): string {
  const cached = usage.cachedTokens !== undefined ? ` (${usage.cachedTokens} cached)` : "";
  return `${usage.promptTokens} in${cached}, ${usage.completionTokens} out`;
}

/** One line, at most `width` characters, with the original length when cut. */
export function shorten(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= width) return flat;
  return `${flat.slice(0, width)}… (${text.length} chars)`;
}
