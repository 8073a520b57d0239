/**
 * `npm run agent`: reads flags and environment, loads the schemas, builds the agent and runs one prompt
 * (or the interactive chat), then maps the ending to an exit code. Everything the process touches comes
 * in through `CliEnvironment`, so tests can run it too; `scripts/agent.ts` only wires in `process`.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { createAgent } from "../runtime/loop/agent.js";
import type { ChatMessage } from "../runtime/loop/messages.js";
import { createTurnRequester, type RetryInfo } from "../runtime/model/model-client.js";
import { loadSchemas } from "../runtime/execution/load-schemas.js";
import { keyMask } from "../runtime/model/key-mask.js";
import { isOpenAIEndpoint } from "../runtime/model/openai-endpoint.js";
import { createToolExecutor } from "../runtime/execution/tool-executor.js";
import { openTranscript, readTranscript, type TranscriptWriter } from "../runtime/loop/transcript.js";
import { createAnswerOutput, type OutputStream } from "./answer-output.js";
import { nonRegularFileProblem, NotRegularFileError } from "../runtime/workspace/regular-file.js";
import { commandLine } from "../shared/package-layout.js";
import { runInteractive } from "./interactive.js";
import { AGENT_USAGE, parseAgentArgs, type AgentArgs } from "./parse-agent-args.js";
import { onceRequestSent } from "./after-request-sent.js";
import { coalescedOutput } from "./coalesced-output.js";
import { colorsWanted, createProgressReporter } from "./progress-reporter.js";
import { EXIT, reportResult } from "./report-result.js";
import { toolModeLine } from "./tool-mode-line.js";
import { createCliApprover } from "./cli-approval.js";
import { readlineQuestions, stdinQuestions, type Questions } from "./terminal-questions.js";
import type { ApprovalRecord } from "../runtime/approval/approval-record.js";
import type { Interface } from "node:readline";

export const DEFAULT_MODEL = "gpt-4o-mini";

export const DEFAULT_SYSTEM_PROMPT =
  "You are a helpful assistant with tools. Use them when they help answer the request; file paths are relative to the workspace. When a tool result says a call was wrong, fix the call as it says. Answer concisely.";

export interface CliEnvironment {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** The directory the user ran the command from (relative paths in flags are resolved against it). */
  cwd: string;
  /** The project root: where `generated/schemas.json` lives. */
  projectRoot: string;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** `isTTY` and `fd` tell a terminal, and whether stdout and stderr are the same one (answer-output.ts). */
  stdout: OutputStream;
  stderr: OutputStream;
  /** Subscribes to Ctrl-C; returns the unsubscribe function. */
  onInterrupt(handler: () => void): () => void;
  /** When the tool modules load and Ajv readies itself; see `WarmUp`. Default: `"behind-first-request"`. */
  warmUp?: WarmUp;
  /**
   * Called once the warm-up is done: before the first request when the warm-up comes first, else while
   * the model answers it. From then on the process runs turns, and only turns.
   */
  afterWarmUp?(): void;
}

/**
 * `"behind-first-request"`: once the first request's body is sent, so that the model's latency hides the
 * work and the first request goes out as early as it can. `"before-first-request"`: before it, so that
 * the turns that follow carry no one-off work (what `runTools` does with its Ajv).
 * docs/tool-execution.md says which entry point does which, and why.
 */
export type WarmUp = "before-first-request" | "behind-first-request";

export async function runAgentCli(io: CliEnvironment): Promise<number> {
  const apiKey = io.env.OPENAI_API_KEY ?? "";
  // Defence in depth: nothing the CLI prints may hold the key, whatever an endpoint echoes back.
  const mask = keyMask(apiKey);
  const stderr = { write: (text: string) => void io.stderr.write(mask.scrub(text)) };
  const stdout = createAnswerOutput(io.stdout, io.stderr, mask);
  const fail = (code: number, message: string): number => {
    stderr.write(`${message}\n`);
    return code;
  };
  const usageError = (message: string) => fail(EXIT.usage, `error: ${message}\nRun ${commandLine("agent", "--help")} for usage.`);

  const parsed = parseAgentArgs(io.argv);
  if (!parsed.ok) return usageError(parsed.error);
  const args = parsed.args;
  if (args.help) {
    io.stdout.write(`${AGENT_USAGE}\n`);
    return EXIT.answer;
  }
  const interactive = args.prompt === undefined;
  if (interactive && io.stdin.isTTY !== true) {
    return usageError(`no prompt given, and stdin is not a terminal for a chat. Pass the prompt: ${commandLine("agent", '"your question"')}`);
  }
  if (apiKey === "") {
    return usageError("OPENAI_API_KEY is not set. Set it (in the environment or in .env) to your key; for a local server that needs none, any value works.");
  }

  const baseURL = io.env.OPENAI_BASE_URL || undefined;
  if (baseURL !== undefined && !isHttpURL(baseURL)) {
    return usageError(`OPENAI_BASE_URL must be an http(s) URL of the API root, such as http://localhost:8080/v1; got ${JSON.stringify(baseURL)}`);
  }

  const allow = args.allow ?? [];
  if (args.readOnly === true && allow.length > 0) {
    return usageError("--read-only offers no tool that needs approval, so there is nothing for --allow to allow; drop one of them");
  }

  const fromUser = (file: string) => path.resolve(io.cwd, file);
  const workspace = fromUser(args.workspace ?? ".");
  if (!isDirectory(workspace)) return usageError(`the workspace ${workspace} is not a directory (--workspace)`);

  const history = loadHistory(args, fromUser, stderr);
  if (!history.ok) return usageError(history.error);

  const schemasPath = args.schemas ? fromUser(args.schemas) : path.join(io.projectRoot, "generated", "schemas.json");
  // A device or FIFO given as the schemas file is a wrong argument, not a stale file (exit 5).
  const schemasNotFile = nonRegularFileProblem(schemasPath);
  if (schemasNotFile !== undefined) return usageError(`${schemasNotFile} (--schemas): give the schemas file npm run gen writes`);
  const schemas = loadSchemas(schemasPath);
  if (!schemas.ok) return fail(EXIT.schemas, `error: ${schemas.error.message}`);
  const strict = args.strict ?? isOpenAIEndpoint(baseURL);
  if (strict && schemas.schemas.strictTools === undefined) {
    return fail(EXIT.schemas, `error: ${schemasPath} has no strictTools (it was written before strict mode existed). Run npm run gen to regenerate it, or pass --no-strict.`);
  }

  // A turn's progress lines go out in one write (coalesced-output.ts). Not in the chat, where readline
  // writes the prompt itself.
  const progress = interactive ? { write: stderr.write, flush: () => undefined } : coalescedOutput(stderr.write);
  const reporter = createProgressReporter(progress, colorsWanted(io.stderr, io.env), mask);
  const executor = createToolExecutor({
    schemas: schemas.schemas,
    schemasDir: path.dirname(schemasPath),
    strict,
    readOnly: args.readOnly === true,
    ...(args.toolTimeoutMs !== undefined ? { timeoutMs: args.toolTimeoutMs } : {}),
  });
  reporter.line(toolModeLine(strict, args.strict !== undefined, schemas.schemas));
  const offered = new Set(executor.definitions.map((tool) => tool.function.name));
  for (const name of new Set(allow)) {
    if (name !== "*" && !offered.has(name)) {
      reporter.line(`warning: --allow ${name} names no offered tool (offered: ${[...offered].join(", ") || "none"}); it allows nothing`);
    }
  }
  // "On a terminal": questions are typed on stdin and shown on stderr; stdout may go anywhere.
  const onTerminal = io.stdin.isTTY === true && io.stderr.isTTY === true;
  const questions: { questions: Questions; attach?: (rl: Interface) => void } | undefined =
    !onTerminal ? undefined : interactive ? deferredQuestions() : { questions: stdinQuestions(io.stdin, io.stderr as NodeJS.WritableStream) };
  const approve = createCliApprover({
    allow,
    questions: questions?.questions,
    show: (text) => {
      progress.flush();
      stderr.write(text);
    },
    note: (text) => reporter.line(text),
    colors: colorsWanted(io.stderr, io.env),
  });
  const requestTurn = createTurnRequester({
    apiKey,
    ...(baseURL !== undefined ? { baseURL } : {}),
    ...(args.idleTimeoutMs !== undefined ? { idleTimeoutMs: args.idleTimeoutMs } : {}),
    ...(args.requestTimeoutMs !== undefined ? { timeoutMs: args.requestTimeoutMs } : {}),
    ...(args.responseTimeoutMs !== undefined ? { responseTimeoutMs: args.responseTimeoutMs } : {}),
    ...(args.maxResponseBytes !== undefined ? { maxResponseBytes: args.maxResponseBytes } : {}),
    onRetry: (info) => {
      stdout.restart();
      reporter.retry(retryText(info));
    },
  });

  let transcript: TranscriptWriter | undefined;
  const transcriptFile = history.file;
  if (transcriptFile !== undefined) {
    try {
      transcript = openTranscript(transcriptFile, { redact: mask.scrub });
    } catch (error) {
      progress.flush();
      if (error instanceof NotRegularFileError) return usageError(`cannot write the transcript: ${error.message}`);
      return usageError(`cannot write the transcript ${transcriptFile} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }

  // The tool modules load and Ajv readies itself before the first tool call, never on it.
  if (io.warmUp === "before-first-request") {
    await executor.warmUp();
    io.afterWarmUp?.();
  } else {
    onceRequestSent(() => void executor.warmUp().then(() => io.afterWarmUp?.()));
  }
  const agent = createAgent({
    requestTurn,
    executor,
    model: args.model ?? (io.env.AGENT_MODEL || DEFAULT_MODEL),
    systemPrompt: DEFAULT_SYSTEM_PROMPT,
    stream: args.stream,
    workspace,
    history: history.messages,
    ...(history.approvals !== undefined ? { approvals: history.approvals } : {}),
    approve,
    onEvent: (event) => {
      stdout.onEvent(event);
      reporter.onEvent(event);
      // Everything so far is out before a request is sent: the turn's line is the last of its burst anyway.
      if (event.type === "turn_start") progress.flush();
    },
    // A tool can read the key (a `.env` in the workspace): masked before the model, history or transcript see it.
    afterToolCall: (_call, result) => ({ ...result, content: mask.scrub(result.content) }),
    ...(args.maxTurns !== undefined ? { maxTurns: args.maxTurns } : {}),
    ...(args.contextWindow !== undefined ? { contextWindow: args.contextWindow } : {}),
    ...(transcript ? { transcript } : {}),
  });

  try {
    if (interactive) {
      return await runInteractive({ agent, input: io.stdin, prompts: io.stderr, stdout, reporter, onReadline: (rl) => questions?.attach?.(rl) });
    }
    const controller = new AbortController();
    const stopListening = io.onInterrupt(() => controller.abort());
    try {
      const result = await agent.run(args.prompt ?? "", { signal: controller.signal });
      const report = reportResult(result);
      if (report.stdout !== undefined) {
        progress.flush();
        stdout.write(report.stdout);
      }
      if (report.message !== undefined) reporter.line(report.message);
      return report.exitCode;
    } finally {
      stopListening();
    }
  } finally {
    progress.flush();
    questions?.questions.close();
    transcript?.close();
  }
}

type HistoryLoad =
  | { ok: true; messages: ChatMessage[]; file?: string; approvals?: Map<string, ApprovalRecord> }
  | { ok: false; error: string };

/** `--resume FILE` continues FILE; `--transcript FILE` starts a new one (refusing to mix conversations). */
function loadHistory(args: AgentArgs, fromUser: (file: string) => string, stderr: { write(text: string): void }): HistoryLoad {
  const transcript = args.transcript ? fromUser(args.transcript) : undefined;
  if (args.resume === undefined) {
    const notFile = transcript === undefined ? undefined : nonRegularFileProblem(transcript);
    if (notFile !== undefined) return { ok: false, error: `${notFile} (--transcript): give the path of a new file` };
    if (transcript !== undefined && existsSync(transcript) && statSync(transcript).size > 0) {
      return { ok: false, error: `the transcript ${transcript} already holds a conversation. Continue it with --resume ${args.transcript}, or choose a new file.` };
    }
    return { ok: true, messages: [], ...(transcript ? { file: transcript } : {}) };
  }
  const resume = fromUser(args.resume);
  if (transcript !== undefined && transcript !== resume) {
    return { ok: false, error: "--resume FILE appends to FILE itself; drop --transcript or give it the same file" };
  }
  const reading = readTranscript(resume);
  if (!reading.ok) return { ok: false, error: `${reading.error} (--resume)` };
  for (const warning of reading.warnings) stderr.write(`warning: ${warning}\n`);
  return { ok: true, messages: reading.messages, file: resume, approvals: reading.approvals };
}

/** The chat's questions: they go through its readline, which exists once the chat starts. */
function deferredQuestions(): { questions: Questions; attach(rl: Interface): void } {
  let attached: Questions | undefined;
  return {
    questions: {
      ask: (question, signal) => attached?.ask(question, signal) ?? Promise.resolve(undefined),
      close: () => attached?.close(),
    },
    attach(rl) {
      attached = readlineQuestions(rl);
    },
  };
}

function isHttpURL(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function retryText(info: RetryInfo): string {
  const wait = info.delayMs !== undefined ? `, waiting ${info.delayMs} ms as the server asked` : "";
  const what = info.by === "broken_response" ? "the response broke after its headers and was dropped" : "the request failed";
  return `${what} (${info.reason}); retry ${info.attempt} of ${info.maxAttempts}${wait}`;
}
