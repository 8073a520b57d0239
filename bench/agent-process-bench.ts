/**
 * The per-turn headline: `npm run agent` as users run it (the process it starts, npm's own start-up left
 * out; default flags but for `--max-turns`; streaming and `--no-stream`) for 100 `get_time` turns and an answer against the
 * zero-latency scripted server, against openai-node's `runTools` with Ajv validation as a plain node
 * process (bench/baselines/runtools-agent.mjs) doing the same, offering the model the same system prompt and
 * tool definitions (`generateTools`). Per turn = (wall time − time to the first
 * request) / 100, so start-up (its own table) is left out and the process's exit is in. Runs alternate;
 * the ratio is the median of the per-round ratios; each round starts with another of the three. A second sigloop column runs what a package user runs:
 * the compiled bin of the packed tarball installed into a fresh project whose tool file re-exports the
 * built-in tools (`node_modules/.bin/sigloop agent`, from that project).
 *
 * Each process's stderr (the CLI's progress, a line group per turn) goes to a file, as it goes to a
 * terminal for a user: something other than the model's server takes it in. Read through a pipe by this
 * process, which also serves the requests, every turn's progress would keep the server from answering
 * while it is read; an extra row measures that too.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_SYSTEM_PROMPT } from "../src/cli/run-agent-cli.js";
import { runGen } from "../src/gen/command/run-gen.js";
import type { SchemasFile } from "../src/shared/schemas-file.js";
import { startScriptedServer, type RecordedRequest, type ScriptedServer, type ScriptStep } from "../src/scripted-server/scripted-server.js";
import { binPath, installedProject } from "./installed-project.js";
import { npmScriptArgs } from "./npm-script.js";
import { headlineRow, median, printTable, type HeadlineRound } from "./table.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TURNS = 100;
const ROUNDS = 15;
const PROMPT = "What time is it? Ask 100 times.";
/** Distinctive, so the CLI's secret scrubbing does not mask words in its messages. */
const BENCH_KEY = "sk-agent-bench-0000";

/** Tool results in a request's history, in whichever dialect it speaks. */
export function toolResults(request: RecordedRequest): number {
  const history = request.body?.messages ?? request.body?.input;
  if (!Array.isArray(history)) return 0;
  return (history as Array<{ role?: string; type?: string; content?: unknown }>).reduce((count, item) => {
    if (item.role === "tool" || item.type === "function_call_output") return count + 1;
    const blocks = item.role === "user" && Array.isArray(item.content) ? (item.content as Array<{ type?: string }>) : [];
    return count + blocks.filter((block) => block.type === "tool_result").length;
  }, 0);
}

/** A model that calls `get_time` until the history holds 100 results, then answers. */
function script(request: RecordedRequest): ScriptStep {
  const results = toolResults(request);
  if (results >= TURNS) return { content: "done" };
  return { toolCalls: [{ id: `call_${results}`, name: "get_time", arguments: "{}" }] };
}

/**
 * The schemas of tools/ for `npm run agent`, and beside them what the baselines offer the model
 * (bench/baselines/offer.mjs): the agent's default system prompt and the same tool definitions, so that
 * every request of either side carries the same prompt and tools.
 */
function generateTools(work: string): { schemas: string; offer: string } {
  const schemas = path.join(work, "schemas.json");
  if (runGen(["--tools", path.join(root, "tools"), "--out", schemas], { cwd: root, stdout: () => {}, stderr: () => {} }) !== 0) throw new Error("gen failed on tools/");
  const offer = path.join(work, "offer.json");
  const { tools } = JSON.parse(readFileSync(schemas, "utf8")) as SchemasFile;
  writeFileSync(offer, JSON.stringify({ instructions: DEFAULT_SYSTEM_PROMPT, tools }));
  return { schemas, offer };
}

export async function runAgentAsUsersRun(): Promise<void> {
  const work = path.join(root, "tmp", `agent-process-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const { schemas, offer } = generateTools(work);
  const project = await installedProject();
  // runTools echoes the SDK's own `parsed` fields in history, which the strict server refuses; its
  // requests are accepted (and flagged) so that it can serve as the baseline at all.
  const server = await startScriptedServer({ script, flagRuleViolationsOnly: true });
  try {
    const rows: string[][] = [];
    const variants = [
      { label: "streaming (default)", stream: true, stderr: "file" },
      { label: "`--no-stream`", stream: false, stderr: "file" },
      { label: "streaming, stderr piped to the process serving the requests", stream: true, stderr: "pipe" },
    ] as const;
    for (const { label, stream, stderr } of variants) {
      const rounds: HeadlineRound[] = [];
      const run = (command: readonly string[], cwd: string, initCwd: string) => perTurn(server, command, cwd, initCwd, stderr === "file" ? path.join(work, "stderr.txt") : undefined);
      for (let round = 0; round <= ROUNDS; round++) {
        process.stderr.write(`bench: agent as a process, ${label}, round ${round}/${ROUNDS}…\n`);
        const flags = ["--max-turns", String(TURNS + 1), ...(stream ? [] : ["--no-stream"]), PROMPT];
        const commands = {
          script: () => run([process.execPath, ...npmScriptArgs(root, "agent"), "--schemas", schemas, ...flags], root, work),
          installed: () => run([binPath(project), "agent", ...flags], project, project),
          baseline: () => run([process.execPath, path.join(root, "bench", "baselines", "runtools-agent.mjs"), String(TURNS + 1), stream ? "stream" : "plain", PROMPT, offer], root, work),
        };
        // Each round starts with another of the three, so that none always runs right after the same one.
        const order = (["script", "installed", "baseline"] as const).map((_, index, names) => names[(index + round) % names.length]!);
        const measured: Record<keyof HeadlineRound, number> = { script: 0, installed: 0, baseline: 0 };
        for (const name of order) measured[name] = await commands[name]();
        // Round 0 warms the file cache and the compiled tools' cache.
        if (round === 0) continue;
        rounds.push(measured);
      }
      rows.push(headlineRow(label, rounds, 2));
    }
    printTable(`agent as users run it: per turn over ${TURNS} \`get_time\` turns, a process each, zero-latency server (median of ${ROUNDS}, alternating)`, [
      "responses", "sigloop agent (`npm run agent` without npm)", "installed bin, compiled (`sigloop agent`)", "baseline: openai `runTools` + Ajv (node)",
      "ratio `npm run agent` (goal ≤ 1.0x)", "ratio installed bin",
    ], rows);
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Runs one process (`command`: the executable, then its arguments) in `cwd` to its end, its stderr into
 * `stderrFile` (or a pipe this process reads); returns (wall − time to its first request) / turns, in ms.
 */
async function perTurn(
  server: ScriptedServer,
  command: readonly string[],
  cwd: string,
  initCwd: string,
  stderrFile: string | undefined,
  endpoint: NodeJS.ProcessEnv = { OPENAI_API_KEY: BENCH_KEY, OPENAI_BASE_URL: server.baseURL },
): Promise<number> {
  const before = server.requests.length;
  const start = performance.now();
  let firstRequest: number | undefined;
  void server.waitForRequests(before + 1, 60_000).then(() => (firstRequest = performance.now()), () => undefined);
  const stderrFd = stderrFile === undefined ? undefined : openSync(stderrFile, "w");
  // As under `npm run`: started in the project root, INIT_CWD where the user typed the command.
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    env: { ...process.env, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", INIT_CWD: initCwd, ...endpoint, AGENT_MODEL: "bench", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", stderrFd ?? "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const end = performance.now();
  if (stderrFd !== undefined && stderrFile !== undefined) {
    closeSync(stderrFd);
    stderr = readFileSync(stderrFile, "utf8");
  }
  const requests = server.requests.length - before;
  if (code !== 0 || stdout.trim() !== "done" || requests !== TURNS + 1 || firstRequest === undefined) {
    throw new Error(`${command.join(" ").slice(0, 200)} exited ${String(code)} after ${requests} requests: ${stderr.slice(-800)}`);
  }
  return (end - firstRequest) / TURNS;
}

const DIALECT_ROUNDS = 15;

/**
 * The same headline on each other dialect: `npm run agent -- --provider anthropic` against the Anthropic
 * SDK's own tool loop (`toolRunner`, with Ajv), `--provider responses` against a plain loop over
 * `openai.responses.create` with Ajv (the SDK has no tool loop for it). Streaming, stderr to a file.
 */
export async function runDialectsAsUsersRun(): Promise<void> {
  const work = path.join(root, "tmp", `agent-dialect-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const { schemas, offer } = generateTools(work);
  // The baselines echo what their SDKs add to history; their requests are accepted (and flagged). The
  // model counts the requests of the process running, not the results in the request: the Anthropic
  // tool runner sends a `thread` and only the newest messages.
  let start = 0;
  const server = await startScriptedServer({
    flagRuleViolationsOnly: true,
    script: (_request, index) => (index - start >= TURNS ? { content: "done" } : { toolCalls: [{ id: `call_${index - start}`, name: "get_time", arguments: "{}" }] }),
  });
  try {
    const rows: string[][] = [];
    const dialects = [
      { provider: "anthropic", baseline: "anthropic-tool-runner-agent.mjs", endpoint: { ANTHROPIC_API_KEY: BENCH_KEY, ANTHROPIC_BASE_URL: server.url } },
      { provider: "responses", baseline: "responses-loop-agent.mjs", endpoint: { OPENAI_API_KEY: BENCH_KEY, OPENAI_BASE_URL: server.baseURL } },
    ];
    for (const { provider, baseline, endpoint } of dialects) {
      const measured: Array<{ sigloop: number; baseline: number }> = [];
      for (let round = 0; round <= DIALECT_ROUNDS; round++) {
        process.stderr.write(`bench: agent as a process, --provider ${provider}, round ${round}/${DIALECT_ROUNDS}…\n`);
        const stderrFile = path.join(work, "stderr.txt");
        const sigloop = () => ((start = server.requests.length), perTurn(server, [process.execPath, ...npmScriptArgs(root, "agent"), "--provider", provider, "--schemas", schemas, "--max-turns", String(TURNS + 1), PROMPT], root, work, stderrFile, endpoint));
        const sdk = () => ((start = server.requests.length), perTurn(server, [process.execPath, path.join(root, "bench", "baselines", baseline), String(TURNS + 1), "stream", PROMPT, offer], root, work, stderrFile, endpoint));
        const first = round % 2 === 0 ? await sigloop() : await sdk();
        const second = round % 2 === 0 ? await sdk() : await sigloop();
        if (round === 0) continue;
        measured.push(round % 2 === 0 ? { sigloop: first, baseline: second } : { sigloop: second, baseline: first });
      }
      const ms = (key: "sigloop" | "baseline") => median(measured.map((round) => round[key]));
      const ratio = median(measured.map((round) => round.sigloop / round.baseline));
      rows.push([provider, `${ms("sigloop").toFixed(2)} ms`, `${ms("baseline").toFixed(2)} ms`, `${ratio.toFixed(2)}x`]);
    }
    printTable(`agent as users run it, per dialect: per turn over ${TURNS} \`get_time\` turns, streaming, a process each, zero-latency server (median of ${DIALECT_ROUNDS}, alternating)`, [
      "provider", "sigloop agent (`npm run agent -- --provider …` without npm)", "baseline: the SDK's own loop + Ajv (node)", "ratio (goal ≤ 1.0x)",
    ], rows);
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}
