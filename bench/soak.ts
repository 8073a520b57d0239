/**
 * Reliability soak (`npm run bench -- reliability`): many conversations of the real agent loop, model
 * client, tool executor and transcript against the scripted server, with endpoint faults injected at random
 * (seeded, so a run can be replayed). Every conversation must end as planned: with its answer when every
 * fault was transient, with a clear error when one was not; and the transcript must equal the history,
 * with no message lost and no partial text in it.
 *
 * SOAK_CONVERSATIONS (default 150) and SOAK_SEED (default 1) tune it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { createAgent } from "../src/runtime/loop/agent.js";
import type { RunResult } from "../src/runtime/loop/agent-events.js";
import type { ChatMessage } from "../src/runtime/loop/messages.js";
import { createTurnRequester } from "../src/runtime/model/model-client.js";
import { createToolExecutor } from "../src/runtime/execution/tool-executor.js";
import { openTranscript, readTranscript } from "../src/runtime/loop/transcript.js";
import type { SchemasFile } from "../src/shared/schemas-file.js";
import { httpError, startScriptedServer, type ReplyStep, type ScriptStep } from "../src/scripted-server/scripted-server.js";
import { printTable } from "./table.js";

const PARTIAL = "PARTIAL-TEXT-NEVER-AN-ANSWER";
const FAST_RETRY = { "retry-after-ms": "1" };

/** A fault and whether the client and loop are expected to get past it when it happens once. */
interface FaultKind {
  name: string;
  steps: () => ScriptStep[];
  /** Happening once, it is recovered from (retried); `false`: it ends the conversation with a clear error. */
  recoverable: boolean;
}

const broken = (fault: "reset" | "cut" | "stall" | "malformed-sse" | "not-json" | "no-choices" | "error-event"): ScriptStep => ({
  fault,
  reply: { content: PARTIAL, stream: { chunkSize: 5 } },
  afterEvents: 3,
});

const FAULTS: FaultKind[] = [
  ...[429, 500, 502, 503, 529].map((status) => ({
    name: String(status),
    steps: () => [httpError(status, `scripted ${status}`, { headers: FAST_RETRY })],
    recoverable: true,
  })),
  ...(["reset", "cut", "stall", "malformed-sse", "not-json", "no-choices", "error-event"] as const).map((fault) => ({
    name: fault,
    steps: () => [broken(fault)],
    recoverable: true,
  })),
  { name: "length", steps: () => [{ content: PARTIAL, finishReason: "length" }], recoverable: true },
  { name: "401", steps: () => [httpError(401, "Incorrect API key provided")], recoverable: false },
  { name: "unknown finish reason", steps: () => [{ content: PARTIAL, finishReason: "weird_reason" }], recoverable: false },
  { name: "content_filter", steps: () => [{ content: PARTIAL, finishReason: "content_filter" }], recoverable: false },
];

/** Enough repeats to outlast every retry layer (SDK × broken-response × length retries). */
const PERSISTENT_REPEATS = 10;

interface Plan {
  steps: ScriptStep[];
  faults: string[];
  expectAnswer: string | undefined;
}

export async function run(): Promise<void> {
  const conversations = Number(process.env.SOAK_CONVERSATIONS ?? 150);
  const random = mulberry32(Number(process.env.SOAK_SEED ?? 1));
  const schemasPath = path.resolve(import.meta.dirname, "..", "generated", "schemas.json");
  if (!existsSync(schemasPath)) {
    printTable("reliability soak", ["status"], [["not run: generated/schemas.json is missing; run npm run gen"]]);
    return;
  }
  // Read as is: whether the schemas are current does not matter to a soak of endpoint faults.
  const schemas = JSON.parse(readFileSync(schemasPath, "utf8")) as SchemasFile;
  const executor = createToolExecutor({ schemas, schemasDir: path.dirname(schemasPath) });
  const workspace = mkdtempSync(path.join(tmpdir(), "sigloop-soak-"));
  const server = await startScriptedServer({ script: [] });
  const totals = { conversations: 0, faults: 0, recovered: 0, clearStops: 0, unexpected: 0, lost: 0, partial: 0, rejected: 0 };
  const byFault = new Map<string, number>();
  const started = performance.now();

  try {
    for (let i = 0; i < conversations; i += 1) {
      const plan = planConversation(i, random);
      server.setScript(plan.steps);
      const requestsBefore = server.requests.length;
      const transcriptFile = path.join(workspace, `conversation-${i}.jsonl`);
      const transcript = openTranscript(transcriptFile);
      const agent = createAgent({
        requestTurn: createTurnRequester({
          apiKey: "soak-key",
          baseURL: server.baseURL,
          maxRetries: 2,
          timeoutMs: 2_000,
          idleTimeoutMs: 100,
          brokenResponseRetries: 2,
        }),
        executor,
        model: "scripted",
        systemPrompt: "You are a soak test.",
        stream: random() < 0.7,
        workspace,
        maxTurns: 20,
        transcript,
      });
      const result = await agent.run(`conversation ${i}`);
      transcript.close();

      totals.conversations += 1;
      totals.faults += plan.faults.length;
      for (const fault of plan.faults) byFault.set(fault, (byFault.get(fault) ?? 0) + 1);
      const outcome = judge(result, plan);
      if (outcome === "recovered" && plan.faults.length > 0) totals.recovered += 1;
      if (outcome === "clear_stop") totals.clearStops += 1;
      if (outcome === "unexpected") {
        totals.unexpected += 1;
        process.stderr.write(`soak: conversation ${i} ended ${JSON.stringify(result)} (faults: ${plan.faults.join(", ")})\n`);
      }
      const saved = readTranscript(transcriptFile);
      totals.lost += lostMessages(agent.messages, saved.ok ? saved.messages : []);
      totals.partial += agent.messages.filter((message) => JSON.stringify(message).includes(PARTIAL)).length;
      totals.rejected += server.requests.slice(requestsBefore).filter((request) => request.violations.length > 0).length;
      if ((i + 1) % 25 === 0) process.stderr.write(`soak: ${i + 1}/${conversations} conversations\n`);
    }
  } finally {
    await server.close();
    rmSync(workspace, { recursive: true, force: true });
  }

  const seconds = (performance.now() - started) / 1000;
  printTable(
    "reliability soak: random endpoint faults, real loop, client, executor and transcript",
    ["conversations", "faults injected", "recovered", "stopped with a clear error", "unexpected endings", "messages lost", "partial text in history", "requests rejected by the strict server", "time"],
    [[totals.conversations, totals.faults, totals.recovered, totals.clearStops, totals.unexpected, totals.lost, totals.partial, totals.rejected, `${seconds.toFixed(1)} s`].map(String)],
  );
  printTable(
    "faults injected, by kind",
    ["fault", "count"],
    [...byFault.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => [name, String(count)]),
  );
}

/**
 * One to three tool-call turns, then the answer; before each reply, maybe a fault. A fault that is not
 * recoverable, or a recoverable one made persistent, ends the plan: the conversation must stop clearly.
 */
function planConversation(index: number, random: () => number): Plan {
  const steps: ScriptStep[] = [];
  const faults: string[] = [];
  const replies = [...Array.from({ length: 1 + Math.floor(random() * 3) }, () => toolTurn(random)), answerTurn(index, random)];
  for (const reply of replies) {
    if (random() < 0.4) {
      const fault = FAULTS[Math.floor(random() * FAULTS.length)]!;
      const persistent = fault.recoverable && random() < 0.15;
      faults.push(persistent ? `${fault.name} (persistent)` : fault.name);
      if (!fault.recoverable || persistent) {
        for (let r = 0; r < (persistent ? PERSISTENT_REPEATS : 1); r += 1) steps.push(...fault.steps());
        return { steps, faults, expectAnswer: undefined };
      }
      steps.push(...fault.steps());
    }
    steps.push(reply);
  }
  return { steps, faults, expectAnswer: `answer ${index}` };
}

function toolTurn(random: () => number): ReplyStep {
  const call = (n: number) =>
    random() < 0.5
      ? { id: `call_${n}`, name: "get_time", arguments: random() < 0.3 ? {} : "{}" }
      : { id: random() < 0.2 ? "" : `call_${n}`, name: "list_files", arguments: '{"dir": ".", "depth": 1}' };
  const calls = random() < 0.3 ? [call(1), call(2)] : [call(1)];
  const quirk = random();
  return {
    toolCalls: calls,
    ...(quirk < 0.15 ? { finishReason: "stop" } : quirk < 0.3 ? { finishReason: null } : {}),
    stream: { chunkSize: 1 + Math.floor(random() * 6), lateId: calls.length === 1 && random() < 0.2, omitIndex: random() < 0.2 },
  };
}

function answerTurn(index: number, random: () => number): ReplyStep {
  return { content: `answer ${index}`, usage: { prompt: 100, completion: 5, cached: 80 }, stream: { chunkSize: 1 + Math.floor(random() * 4) } };
}

function judge(result: RunResult, plan: Plan): "recovered" | "clear_stop" | "unexpected" {
  if (plan.expectAnswer !== undefined) return result.kind === "answer" && result.answer === plan.expectAnswer ? "recovered" : "unexpected";
  const clear =
    (result.kind === "api_error" && result.error.message !== "" && !result.error.message.includes("\n    at ")) ||
    result.kind === "unknown_finish" ||
    result.kind === "content_filter" ||
    result.kind === "length_exhausted";
  return clear ? "clear_stop" : "unexpected";
}

/** Messages of the history missing from (or different in) the transcript, position by position. */
function lostMessages(history: readonly ChatMessage[], transcript: readonly ChatMessage[]): number {
  let lost = Math.max(0, history.length - transcript.length);
  for (let i = 0; i < Math.min(history.length, transcript.length); i += 1) {
    if (!isDeepStrictEqual(history[i], transcript[i])) lost += 1;
  }
  return lost + Math.max(0, transcript.length - history.length);
}

/** A small seeded PRNG, so a soak run can be replayed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
