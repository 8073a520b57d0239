/**
 * `npm run agent`: reads flags and environment, loads the schemas, builds the agent and runs one prompt
 * (or the interactive chat), then maps the ending to an exit code. Everything the process touches comes
 * in through `CliEnvironment`, so tests can run it too; `scripts/agent.ts` only wires in `process`.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { createAgent } from "../runtime/loop/agent.js";
import type { ChatMessage } from "../runtime/loop/messages.js";
import { createTurnRequester, type RetryInfo } from "../runtime/model/model-client.js";
import { loadSchemas } from "../runtime/execution/load-schemas.js";
import { keyMask } from "../runtime/model/key-mask.js";
import { maskURLCredentials, withoutCredentials } from "../runtime/model/url-credentials.js";
import { isOpenAIEndpoint } from "../runtime/model/openai-endpoint.js";
import { createToolExecutor } from "../runtime/execution/tool-executor.js";
import { openTranscript, readTranscript, type TranscriptWriter } from "../runtime/loop/transcript.js";
import { lockTranscript, type TranscriptLock } from "../runtime/loop/transcript-lock.js";
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
  const mask = maskURLCredentials(keyMask(apiKey), io.env.OPENAI_BASE_URL);
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
    return usageError(`OPENAI_BASE_URL must be an http(s) URL of the API root, such as http://localhost:8080/v1; got ${JSON.stringify(withoutCredentials(baseURL))}`);
  }

  const fromUser = (file: string) => path.resolve(io.cwd, file);
  const workspace = fromUser(args.workspace ?? ".");
  if (!isDirectory(workspace)) return usageError(`the workspace ${workspace} is not a directory (--workspace)`);

  const history = loadHistory(args, fromUser, stderr);
  if (!history.ok) return usageError(history.error);

  try {
    return await runWithHistory(history);
  } finally {
    history.lock?.release();
  }

  /** The rest of the run, while the transcript (if any) is locked. */
  async function runWithHistory(history: HistoryLoaded): Promise<number> {
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
      ...(args.toolTimeoutMs !== undefined ? { timeoutMs: args.toolTimeoutMs } : {}),
    });
    reporter.line(toolModeLine(strict, args.strict !== undefined, schemas.schemas));
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
        return await runInteractive({ agent, input: io.stdin, prompts: io.stderr, stdout, reporter });
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
      transcript?.close();
    }
  }
}

interface HistoryLoaded {
  ok: true;
  messages: ChatMessage[];
  file?: string;
  /** Held until the run ends: one run per transcript. */
  lock?: TranscriptLock;
}

type HistoryLoad = HistoryLoaded | { ok: false; error: string };

/** `--resume FILE` continues FILE; `--transcript FILE` starts a new one (refusing to mix conversations). */
function loadHistory(args: AgentArgs, fromUser: (file: string) => string, stderr: { write(text: string): void }): HistoryLoad {
  const transcript = args.transcript ? fromUser(args.transcript) : undefined;
  if (args.resume === undefined) {
    const notFile = transcript === undefined ? undefined : nonRegularFileProblem(transcript);
    if (notFile !== undefined) return { ok: false, error: `${notFile} (--transcript): give the path of a new file` };
    if (transcript === undefined) return { ok: true, messages: [] };
    // Locked before it is checked, so that two runs starting on one new file cannot both find it empty.
    const locking = lockOrExplain(transcript, true);
    if (!locking.ok) return locking;
    if (statSync(transcript).size > 0) {
      locking.lock?.release();
      return { ok: false, error: `the transcript ${transcript} already holds a conversation. Continue it with --resume ${args.transcript}, or choose a new file.` };
    }
    return { ok: true, messages: [], file: transcript, ...(locking.lock !== undefined ? { lock: locking.lock } : {}) };
  }
  const resume = fromUser(args.resume);
  if (transcript !== undefined && transcript !== resume) {
    return { ok: false, error: "--resume FILE appends to FILE itself; drop --transcript or give it the same file" };
  }
  const locking = lockOrExplain(resume, false);
  if (!locking.ok) return locking;
  const reading = readTranscript(resume);
  if (!reading.ok) {
    locking.lock?.release();
    return { ok: false, error: `${reading.error} (--resume)` };
  }
  for (const warning of reading.warnings) stderr.write(`warning: ${warning}\n`);
  return { ok: true, messages: reading.messages, file: resume, ...(locking.lock !== undefined ? { lock: locking.lock } : {}) };
}

/**
 * The transcript's lock, or why not: in use by another run. A file that cannot be opened gets no lock
 * here; reading or writing it then says what is wrong, as before.
 */
function lockOrExplain(file: string, create: boolean): { ok: true; lock?: TranscriptLock } | { ok: false; error: string } {
  let locking: ReturnType<typeof lockTranscript>;
  try {
    locking = lockTranscript(file, create);
  } catch {
    return { ok: true };
  }
  return locking.ok ? { ok: true, lock: locking.lock } : { ok: false, error: locking.error };
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
