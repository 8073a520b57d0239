/**
 * The per-turn headline: `npm run agent` as users run it (the process it starts, npm's own start-up left
 * out; default flags but for `--max-turns`; streaming and `--no-stream`) for 100 `get_time` turns and an answer against the
 * zero-latency scripted server, against openai-node's `runTools` with Ajv validation as a plain node
 * process (bench/baselines/runtools-agent.mjs) doing the same. Per turn = (wall time − time to the first
 * request) / 100, so start-up (its own table) is left out and the process's exit is in. Runs alternate;
 * the ratio is the median of the per-round ratios.
 */
import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runGen } from "../src/gen/run-gen.js";
import { startScriptedServer, type RecordedRequest, type ScriptedServer, type ScriptStep } from "../src/scripted-server/scripted-server.js";
import { npmScriptArgs } from "./npm-script.js";
import { median, printTable } from "./table.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TURNS = 100;
const ROUNDS = 7;
const PROMPT = "What time is it? Ask 100 times.";
/** Distinctive, so the CLI's secret scrubbing does not mask words in its messages. */
const BENCH_KEY = "sk-agent-bench-0000";

/** A model that calls `get_time` until the history holds 100 results, then answers. */
function script(request: RecordedRequest): ScriptStep {
  const messages = Array.isArray(request.body?.messages) ? (request.body.messages as { role?: string }[]) : [];
  const results = messages.filter((message) => message.role === "tool").length;
  if (results >= TURNS) return { content: "done" };
  return { toolCalls: [{ id: `call_${results}`, name: "get_time", arguments: "{}" }] };
}

export async function runAgentAsUsersRun(): Promise<void> {
  const work = path.join(root, "tmp", `agent-process-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const schemas = path.join(work, "schemas.json");
  if (runGen(["--tools", path.join(root, "tools"), "--out", schemas], { cwd: root, stdout: () => {}, stderr: () => {} }) !== 0) throw new Error("gen failed on tools/");
  // runTools echoes the SDK's own `parsed` fields in history, which the strict server refuses; its
  // requests are accepted (and flagged) so that it can serve as the baseline at all.
  const server = await startScriptedServer({ script, flagRuleViolationsOnly: true });
  try {
    const rows: string[][] = [];
    for (const stream of [true, false]) {
      const ours: number[] = [];
      const theirs: number[] = [];
      const ratios: number[] = [];
      for (let round = 0; round <= ROUNDS; round++) {
        process.stderr.write(`bench: agent as a process, ${stream ? "streaming" : "--no-stream"}, round ${round}/${ROUNDS}…\n`);
        const agentArgs = [...npmScriptArgs(root, "agent"), "--schemas", schemas, "--max-turns", String(TURNS + 1), ...(stream ? [] : ["--no-stream"]), PROMPT];
        const cli = await perTurn(server, agentArgs, work);
        const baseline = await perTurn(server, [path.join(root, "bench", "baselines", "runtools-agent.mjs"), String(TURNS + 1), stream ? "stream" : "plain", PROMPT], work);
        // Round 0 warms the file cache and tsx's transform cache.
        if (round === 0) continue;
        ours.push(cli);
        theirs.push(baseline);
        ratios.push(cli / baseline);
      }
      rows.push([stream ? "streaming (default)" : "`--no-stream`", `${median(ours).toFixed(2)} ms`, `${median(theirs).toFixed(2)} ms`, `**${median(ratios).toFixed(2)}x**`]);
    }
    printTable(`agent as users run it: per turn over ${TURNS} \`get_time\` turns, a process each, zero-latency server (median of ${ROUNDS}, alternating)`, [
      "responses", "sigloop agent (`npm run agent` without npm)", "baseline: openai `runTools` + Ajv (node)", "ratio (goal ≤ 1.0x)",
    ], rows);
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Runs one process to its end; returns (wall − time to its first request) / turns, in ms. */
async function perTurn(server: ScriptedServer, args: readonly string[], cwd: string): Promise<number> {
  const before = server.requests.length;
  const start = performance.now();
  let firstRequest: number | undefined;
  void server.waitForRequests(before + 1, 60_000).then(() => (firstRequest = performance.now()), () => undefined);
  // As under `npm run`: started in the project root, INIT_CWD where the user typed the command.
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, INIT_CWD: cwd, OPENAI_API_KEY: BENCH_KEY, OPENAI_BASE_URL: server.baseURL, AGENT_MODEL: "bench", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const end = performance.now();
  const requests = server.requests.length - before;
  if (code !== 0 || stdout.trim() !== "done" || requests !== TURNS + 1 || firstRequest === undefined) {
    throw new Error(`${args.join(" ").slice(0, 200)} exited ${String(code)} after ${requests} requests: ${stderr.slice(-800)}`);
  }
  return (end - firstRequest) / TURNS;
}
