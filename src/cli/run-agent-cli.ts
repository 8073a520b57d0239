/**
 * `npm run agent`: reads flags and environment, loads the schemas, builds the agent and runs one prompt
 * (or the interactive chat), then maps the ending to an exit code. Everything the process touches comes
 * in through `CliEnvironment`, so tests can run it too; `scripts/agent.ts` only wires in `process`.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { createAgent } from "../runtime/loop/agent.js";
import type { ChatMessage } from "../runtime/loop/messages.js";
import type { RetryInfo } from "../runtime/model/resending-requester.js";
import { loadSchemas } from "../runtime/execution/load-schemas.js";
import { genCommandFor } from "../runtime/execution/gen-command.js";
import { keysMask } from "../runtime/model/key-masks.js";
import { foreignPartCount } from "../runtime/loop/provider-parts.js";
import { openCassette, type CassetteWriter } from "../runtime/model/cassette.js";
import { chooseProvider, DEFAULT_MODELS, providerRequester } from "./model-provider.js";
import { maskURLCredentials } from "../runtime/model/url-credentials.js";
import { createToolExecutor } from "../runtime/execution/tool-executor.js";
import type { McpServers } from "../runtime/mcp-client/connect-mcp-servers.js";
import { readMcpConfig, type McpConfig } from "../runtime/mcp-client/mcp-config.js";
import { escapeControls } from "./terminal-safe.js";
import { openTranscript, readTranscript, type TranscriptWriter } from "../runtime/loop/transcript.js";
import { lockTranscript, type TranscriptLock } from "../runtime/loop/transcript-lock.js";
import { createAnswerOutput, type OutputStream } from "./answer-output.js";
import { nonRegularFileProblem } from "../runtime/workspace/regular-file.js";
import { cannotWriteMessage } from "./cannot-write.js";
import { commandLine } from "../shared/package-layout.js";
import { runInteractive } from "./interactive.js";
import { AGENT_USAGE, parseAgentArgs, type AgentArgs } from "./parse-agent-args.js";
import { onceRequestSent } from "./after-request-sent.js";
import { coalescedOutput } from "./coalesced-output.js";
import { colorsWanted, createProgressReporter } from "./progress-reporter.js";
import { EXIT, reportResult } from "./report-result.js";
import { anthropicLenientLines, toolModeLine } from "./tool-mode-line.js";
import { createCliApprover } from "./cli-approval.js";
import { readlineQuestions, stdinQuestions, type Questions } from "./terminal-questions.js";
import type { ApprovalRecord } from "../runtime/approval/approval-record.js";
import type { Interface } from "node:readline";

export const DEFAULT_MODEL = DEFAULT_MODELS.chat;

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
}

/**
 * `"behind-first-request"`: once the first request's body is sent, so that the model's latency hides the
 * work and the first request goes out as early as it can. `"before-first-request"`: before it, so that
 * the turns that follow carry no one-off work (what `runTools` does with its Ajv).
 * docs/tool-execution.md says which entry point does which, and why.
 */
export type WarmUp = "before-first-request" | "behind-first-request";

export async function runAgentCli(io: CliEnvironment): Promise<number> {
  // Defence in depth: nothing the CLI prints may hold a key (either provider's) or a base URL's
  // credentials, whatever an endpoint echoes back.
  const mask = maskURLCredentials(maskURLCredentials(keysMask([io.env.OPENAI_API_KEY ?? "", io.env.ANTHROPIC_API_KEY ?? ""]), io.env.OPENAI_BASE_URL), io.env.ANTHROPIC_BASE_URL);
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
  const choice = chooseProvider(args, io.env);
  if (!choice.ok) return usageError(choice.error);
  const setup = choice.setup;

  const allow = args.allow ?? [];
  if (args.readOnly === true && allow.length > 0) {
    return usageError("--read-only offers no tool that needs approval, so there is nothing for --allow to allow; drop one of them");
  }

  const fromUser = (file: string) => path.resolve(io.cwd, file);
  const workspace = fromUser(args.workspace ?? ".");
  if (!isDirectory(workspace)) return usageError(`the workspace ${workspace} is not a directory (--workspace)`);

  if (args.record !== undefined) {
    const record = fromUser(args.record);
    const conversation = [args.transcript, args.resume].find((file) => file !== undefined && sameFile(fromUser(file), record));
    if (conversation !== undefined) {
      return usageError(`--record ${args.record} is the transcript of this run: the cassette would overwrite the conversation. Record into a file of its own.`);
    }
  }
  const history = loadHistory(args, fromUser, stderr);
  if (!history.ok) return usageError(history.error);
  const foreign = foreignPartCount(history.messages, setup.provider);
  if (foreign > 0) {
    stderr.write(`note: the transcript holds ${foreign} reasoning part${foreign === 1 ? "" : "s"} (thinking blocks, reasoning items) from another provider, which ${setup.provider} cannot take; they are not sent, and stay in the transcript\n`);
  }

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
    if (schemasNotFile !== undefined) return usageError(`${schemasNotFile} (--schemas): give the schemas file ${commandLine("gen")} writes`);
    const schemas = loadSchemas(schemasPath, io.cwd);
    if (!schemas.ok) return fail(EXIT.schemas, `error: ${schemas.error.message}`);
    const strict = args.strict ?? setup.strictByDefault;
    if (strict && schemas.schemas.strictTools === undefined) {
      return fail(EXIT.schemas, `error: ${schemasPath} has no strictTools (it was written before strict mode existed). Run ${genCommandFor(schemasPath, schemas.schemas.inputs.toolsDir, io.cwd)} to regenerate it, or pass --no-strict.`);
    }

    // Read and checked before anything starts: starting a server runs a program, so a bad file runs none.
    let mcpConfig: McpConfig | undefined;
    if (args.mcp !== undefined) {
      const read = readMcpConfig(fromUser(args.mcp), io.env);
      if (!read.ok) return usageError(`--mcp ${read.error}`);
      mcpConfig = read.config;
      for (const warning of mcpConfig.warnings) stderr.write(`${escapeControls(warning)}\n`);
    }

    // A turn's progress lines go out in one write (coalesced-output.ts). Not in the chat, where readline
    // writes the prompt itself.
    const progress = interactive ? { write: stderr.write, flush: () => undefined } : coalescedOutput(stderr.write);
    // A terminal that reports no width (a pseudo-terminal without a window size) is taken as $COLUMNS or 80 wide.
    const terminal = io.stderr.isTTY === true ? { columns: io.stderr.columns || Number(io.env.COLUMNS) || 80 } : undefined;
    const reporter = createProgressReporter(progress, colorsWanted(io.stderr, io.env), mask, terminal);
    const executor = createToolExecutor({
      schemas: schemas.schemas,
      schemasDir: path.dirname(schemasPath),
      strict,
      readOnly: args.readOnly === true,
      ...(args.toolTimeoutMs !== undefined ? { timeoutMs: args.toolTimeoutMs } : {}),
    });
    reporter.line(toolModeLine(strict, args.strict !== undefined, schemas.schemas, setup.strictReason));
    if (strict && setup.provider === "anthropic") for (const line of anthropicLenientLines(schemas.schemas)) reporter.line(line);
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
    let cassette: CassetteWriter | undefined;
    if (args.record !== undefined) {
      const file = fromUser(args.record);
      const notFile = nonRegularFileProblem(file);
      if (notFile !== undefined) return usageError(`${notFile} (--record): give the path of the cassette to write`);
      try {
        cassette = openCassette(file, mask);
      } catch (error) {
        return usageError(cannotWriteMessage("cassette", file, error));
      }
    }
    const requestTurn = await providerRequester(setup, args, {
      ...(cassette !== undefined ? { record: cassette } : {}),
      ...(args.idleTimeoutMs !== undefined ? { idleTimeoutMs: args.idleTimeoutMs } : {}),
      ...(args.requestTimeoutMs !== undefined ? { timeoutMs: args.requestTimeoutMs } : {}),
      ...(args.responseTimeoutMs !== undefined ? { responseTimeoutMs: args.responseTimeoutMs } : {}),
      ...(args.maxResponseBytes !== undefined ? { maxResponseBytes: args.maxResponseBytes } : {}),
      onRetry: (info) => {
        stdout.restart();
        reporter.retry(retryText(info));
      },
    }, { onReasoningSummary: (summary) => reporter.line(`reasoning: ${summary}`) });

    let transcript: TranscriptWriter | undefined;
    const transcriptFile = history.file;
    if (transcriptFile !== undefined) {
      try {
        transcript = openTranscript(transcriptFile, { redact: mask.scrub });
      } catch (error) {
        progress.flush();
        return usageError(cannotWriteMessage("transcript", transcriptFile, error));
      }
    }

    // Every server is started (in parallel) before the first request, and closed on every way out below.
    // The MCP SDK (about 0.3 s of imports) loads only for a run that names servers.
    let mcp: McpServers | undefined;
    if (mcpConfig !== undefined) {
      const { connectMcpServers } = await import("../runtime/mcp-client/connect-mcp-servers.js");
      const connected = await connectMcpServers({
        config: mcpConfig,
        local: executor,
        strict,
        readOnly: args.readOnly === true,
        cwd: io.cwd,
        ...(args.mcpTimeoutMs !== undefined ? { startTimeoutMs: args.mcpTimeoutMs } : {}),
        ...(args.toolTimeoutMs !== undefined ? { callTimeoutMs: args.toolTimeoutMs } : {}),
        onServerStderr: (server, line) => stderr.write(`${escapeControls(`[${server}] ${line}`)}\n`),
        onNotice: (line) => reporter.line(escapeControls(mask.scrub(line))),
      });
      if (!connected.ok) {
        progress.flush();
        transcript?.close();
        return usageError(`--mcp ${mcpConfig.file}: ${connected.error}`);
      }
      mcp = connected.servers;
    }
    // Checked once the servers' tools are known: `--allow srv__tool` names a tool of theirs.
    const tools = mcp?.executor ?? executor;
    const notOffered = [...new Set(allow)].filter((name) => name !== "*" && tools.describe?.(name) === undefined);
    if (notOffered.length > 0) {
      const offered = tools.definitions.map((tool) => tool.function.name).join(", ") || "none";
      for (const name of notOffered) reporter.line(`warning: --allow ${name} names no offered tool (offered: ${offered}); it allows nothing`);
    }

    // The tool modules load and Ajv readies itself before the first tool call, never on it.
    if (io.warmUp === "before-first-request") await executor.warmUp();
    else onceRequestSent(() => void executor.warmUp());
    const agent = createAgent({
      requestTurn,
      executor: tools,
      model: args.model ?? (io.env.AGENT_MODEL || DEFAULT_MODELS[setup.provider]),
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
      cassette?.close();
      await mcp?.close();
    }
  }
}

interface HistoryLoaded {
  ok: true;
  messages: ChatMessage[];
  file?: string;
  approvals?: Map<string, ApprovalRecord>;
  /** Held until the run ends: one run per transcript. */
  lock?: TranscriptLock;
}

type HistoryLoad = HistoryLoaded | { ok: false; error: string };

/** `--resume FILE` continues FILE; `--transcript FILE` starts a new one (refusing to mix conversations). */
/** Whether two paths name one file: the same path, or (both existing) the same inode, through a link or another spelling. */
function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    const [first, second] = [statSync(a), statSync(b)];
    return first.dev === second.dev && first.ino === second.ino;
  } catch {
    return false;
  }
}

function loadHistory(args: AgentArgs, fromUser: (file: string) => string, stderr: { write(text: string): void }): HistoryLoad {
  const transcript = args.transcript ? fromUser(args.transcript) : undefined;
  if (args.resume === undefined) {
    const notFile = transcript === undefined ? undefined : nonRegularFileProblem(transcript);
    if (notFile !== undefined) return { ok: false, error: `${notFile} (--transcript): give the path of a new file` };
    if (transcript === undefined) return { ok: true, messages: [] };
    // Locked before it is checked, so that two runs starting on one new file cannot both find it empty.
    const locking = lockOrExplain(transcript, true);
    if (!locking.ok) return locking;
    const size = sizeOrProblem(transcript, locking.failure);
    if (typeof size === "string") return { ok: false, error: size };
    if (size > 0) {
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
  return { ok: true, messages: reading.messages, file: resume, approvals: reading.approvals, ...(locking.lock !== undefined ? { lock: locking.lock } : {}) };
}

/**
 * The transcript's lock, or why not: in use by another run. A file that cannot be opened gets no lock
 * here (`failure` holds the error); reading or writing it then says what is wrong, as before.
 */
function lockOrExplain(file: string, create: boolean): { ok: true; lock?: TranscriptLock; failure?: unknown } | { ok: false; error: string } {
  let locking: ReturnType<typeof lockTranscript>;
  try {
    locking = lockTranscript(file, create);
  } catch (error) {
    return { ok: true, failure: error };
  }
  return locking.ok ? { ok: true, lock: locking.lock } : { ok: false, error: locking.error };
}

/**
 * The size of the new transcript, or why it cannot be written: a run must not send a request it cannot
 * record. When nothing was created, the lock's open says best why (EACCES where a later stat says ENOENT).
 */
function sizeOrProblem(file: string, openFailure: unknown): number | string {
  try {
    return statSync(file).size;
  } catch (error) {
    return cannotWriteMessage("transcript", file, openFailure ?? error);
  }
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
