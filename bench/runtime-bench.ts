/**
 * `npm run bench -- runtime`: the runtime's speed, each figure beside a baseline measured in the same run.
 * - First the headline: the CLI per turn as users run it, a process (bench/agent-process-bench.ts), then
 *   the same per dialect (Anthropic Messages, Responses) against each SDK's own loop.
 * - Validation per call once compiled (vs `JSON.parse` of the same arguments), and what compiling every
 *   validator at start-up would cost (the executor compiles each on first use instead).
 * - The loop's overhead per turn in process (an extra row) over the scripted server (zero latency, 200 tool-call turns), against the
 *   `openai` SDK's own `chat.completions.runTools` and a bare `create` loop doing the same work.
 * - Start-up to the first request of the process `npm run agent` starts, with the default tools and 100 more,
 *   and of the installed package's compiled bin (`npm pack`, installed into a fresh project, run as
 *   `node_modules/.bin/sigloop agent`), against a floor: tsx running a file that only imports `openai` and
 *   sends one request (and, for reference, plain node doing the same).
 */
import { spawn } from "node:child_process";
import { setMaxListeners } from "node:events";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { runGen } from "../src/gen/command/run-gen.js";
import { createAgent } from "../src/runtime/loop/agent.js";
import { loadSchemas } from "../src/runtime/execution/load-schemas.js";
import { createTurnRequester } from "../src/runtime/model/model-client.js";
import { createToolExecutor } from "../src/runtime/execution/tool-executor.js";
import { compileArguments, createAjv } from "../src/runtime/execution/validate-arguments.js";
import type { SchemasFile, ToolDefinition } from "../src/shared/schemas-file.js";
import { startScriptedServer, type ScriptedServer, type ScriptStep } from "../src/scripted-server/scripted-server.js";
import { runAgentAsUsersRun, runDialectsAsUsersRun } from "./agent-process-bench.js";
import { npmScriptArgs } from "./npm-script.js";
import { binPath, installedProject } from "./installed-project.js";
import { median, printTable } from "./table.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TURNS = 200;
const EXTRA_TOOLS = 100;
/** Distinctive, so the CLI's secret scrubbing does not mask words in its messages. */
const BENCH_KEY = "sk-runtime-bench-0000";

export async function run(): Promise<void> {
  await runAgentAsUsersRun();
  await runDialectsAsUsersRun();
  // Inside the project (git-ignored tmp/), so files there resolve `openai` and the tools' imports.
  const work = path.join(root, "tmp", `runtime-bench-${process.pid}`);
  mkdirSync(work, { recursive: true });
  try {
    const generateBoth = () => ({
      defaultSchemas: generate(path.join(root, "tools"), path.join(work, "default", "schemas.json")),
      extendedSchemas: generate(writeExtendedTools(path.join(work, "extended")), path.join(work, "extended", "generated", "schemas.json")),
    });
    const first = generateBoth();
    await benchValidation(first.defaultSchemas, first.extendedSchemas);
    await benchLoop(work);
    // Again, right before use: an edit to a tool source since the first run would make them stale.
    const fresh = generateBoth();
    await benchStartup(work, fresh.defaultSchemas, fresh.extendedSchemas);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function log(text: string): void {
  process.stderr.write(`runtime-bench: ${text}\n`);
}

/** Runs the real generator in-process; returns the schemas file's path. */
function generate(toolsDir: string, outFile: string): string {
  log(`generating ${path.relative(root, outFile)}`);
  const code = runGen(["--tools", toolsDir, "--out", outFile], { cwd: root, stdout: () => {}, stderr: () => {} });
  if (code !== 0) throw new Error(`npm run gen failed for ${toolsDir}`);
  return outFile;
}

/** The default tools plus 100 more typed, documented ones, in a tools folder of their own. */
function writeExtendedTools(dir: string): string {
  const toolsDir = path.join(dir, "tools");
  mkdirSync(toolsDir, { recursive: true });
  for (const file of readdirSync(path.join(root, "tools")).filter((name) => name.endsWith(".ts"))) {
    const text = readFileSync(path.join(root, "tools", file), "utf8").replaceAll('from "../src/', `from "${root}/src/`);
    writeFileSync(path.join(toolsDir, file), text);
  }
  for (let index = 0; index < EXTRA_TOOLS; index++) {
    const name = `lookup_${String(index).padStart(3, "0")}`;
    writeFileSync(
      path.join(toolsDir, `${name}.ts`),
      [
        `export interface Filter${index} {`,
        `  /** Only records with this status. */`,
        `  status?: "open" | "closed";`,
        `  /** Only records changed after this time. @format date-time */`,
        `  since?: string;`,
        `}`,
        `/**`,
        ` * Looks up records in table ${index} by key.`,
        ` * @param key The record key.`,
        ` * @minLength 1`,
        ` * @param limit How many records to return at most.`,
        ` * @minimum 1`,
        ` * @multipleOf 1`,
        ` * @param filter Which records to keep.`,
        ` */`,
        `export function ${name}(key: string, limit = 10, filter: Filter${index} = {}): string {`,
        `  return JSON.stringify({ key, limit, filter });`,
        `}`,
        ``,
      ].join("\n"),
    );
  }
  return toolsDir;
}

function loaded(schemasPath: string): SchemasFile {
  const result = loadSchemas(schemasPath);
  if (!result.ok) throw new Error(result.error.message);
  return result.schemas;
}

/** Nanoseconds per call of `fn`, the median of a few timed batches after a warm-up batch. */
function nsPerCall(iterations: number, fn: () => unknown): number {
  const batches: number[] = [];
  for (let batch = 0; batch < 6; batch++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    const elapsed = Number(process.hrtime.bigint() - start) / iterations;
    if (batch > 0) batches.push(elapsed);
  }
  return median(batches);
}

/** Microseconds per `execute` of the fixture's `add` (parse, validate, bind, call with timeout, format). */
async function executeMicros(): Promise<number> {
  const fixture = (await import("../test/fixtures/executor/schemas.js")).fixtureSchemas;
  const executor = createToolExecutor({ schemas: fixture, schemasDir: path.join(root, "test", "fixtures", "executor") });
  const call = { id: "c", type: "function" as const, function: { name: "add", arguments: '{"a":1,"b":2}' } };
  const context = { workspace: root, signal: new AbortController().signal };
  const batches: number[] = [];
  for (let batch = 0; batch < 6; batch++) {
    const start = performance.now();
    for (let i = 0; i < 5_000; i++) await executor.execute(call, context);
    if (batch > 0) batches.push(((performance.now() - start) * 1000) / 5_000);
  }
  return median(batches);
}

async function benchValidation(defaultPath: string, extendedPath: string): Promise<void> {
  log("validation");
  const schemas = loaded(defaultPath);
  const readFile = schemas.tools.find((tool) => tool.function.name === "read_file");
  if (readFile === undefined) throw new Error("the default tools have no read_file");
  let start = performance.now();
  const firstAjv = await createAjv();
  const importAndCreateMs = performance.now() - start;
  const validate = compileArguments(firstAjv, readFile.function.parameters);
  const text = '{"path":"src/index.ts","offset":10,"limit":50}';
  const args = JSON.parse(text) as Record<string, unknown>;
  if (!validate(args)) throw new Error("the benchmark's arguments do not validate");
  const parseNs = nsPerCall(200_000, () => JSON.parse(text));
  const validateNs = nsPerCall(1_000_000, () => validate(args));

  const extended = loaded(extendedPath);
  const timeMs = (fn: () => void): number => {
    const start = performance.now();
    fn();
    return performance.now() - start;
  };
  const ajvSetup: number[] = [];
  const compileAll: number[] = [];
  for (let round = 0; round < 3; round++) {
    start = performance.now();
    const ajv = await createAjv();
    ajvSetup.push(performance.now() - start);
    start = performance.now();
    for (const tool of extended.tools) compileArguments(ajv, tool.function.parameters);
    compileAll.push(performance.now() - start);
  }
  // On first use in a run: the first validator pays for Ajv's own warm-up, later ones share the instance.
  const sharedAjv = await createAjv();
  const firstUse = extended.tools.slice(0, 21).map((tool) => timeMs(() => compileArguments(sharedAjv, tool.function.parameters)));
  const all = extended.tools.length;
  const executeUs = await executeMicros();

  printTable(
    "Runtime: argument validation (read_file arguments, validator compiled)",
    ["what", "per call", "vs JSON.parse of the same arguments"],
    [
      ["JSON.parse of the arguments (baseline)", `${parseNs.toFixed(0)} ns`, "1.00x"],
      ["Ajv validation, compiled", `${validateNs.toFixed(0)} ns`, `${(validateNs / parseNs).toFixed(2)}x`],
      ["whole executor call of a tiny tool (parse, validate, bind, timeout, format)", `${executeUs.toFixed(1)} µs`, `${((executeUs * 1000) / parseNs).toFixed(1)}x`],
    ],
  );
  printTable(
    "Runtime: compiling validators (why the executor compiles each on first use)",
    ["what", "time"],
    [
      ["importing Ajv + ajv-formats and creating the instance (the run's first tool call)", `${importAndCreateMs.toFixed(1)} ms`],
      ["creating an Ajv instance once imported", `${median(ajvSetup).toFixed(1)} ms`],
      ["the first tool's validator, on its first call", `${(firstUse[0] ?? NaN).toFixed(2)} ms`],
      ["each further tool's validator, on its first call (median of 20)", `${median(firstUse.slice(1)).toFixed(2)} ms`],
      [`all ${all} tools at start-up (not done)`, `${median(compileAll).toFixed(0)} ms`],
    ],
  );
}

/** A model that calls `add` until the history holds 200 tool results, then answers. */
function loopScript(request: { body?: { messages?: unknown } }): ScriptStep {
  const messages = Array.isArray(request.body?.messages) ? (request.body.messages as { role?: string }[]) : [];
  const results = messages.filter((message) => message.role === "tool").length;
  if (results >= TURNS) return { content: "done", extraMessageFields: {} };
  return { toolCalls: [{ id: `call_${results}`, name: "add", arguments: '{"a":1,"b":2}' }], extraMessageFields: {} };
}

/**
 * The fixture schemas with only their `add` tool. Every loop sends this one definition with each request:
 * given all the fixture's tools, sigloop's requests would be 20 times larger than the baselines' (more to
 * serialize, send and parse on both ends), which measures the payload, not the loop.
 */
function addOnly(schemas: SchemasFile): SchemasFile {
  const index = schemas.tools.findIndex((tool) => tool.function.name === "add");
  const tool = schemas.tools[index];
  const binding = schemas.bindings[index];
  if (tool === undefined || binding === undefined) throw new Error("the executor fixture has no add tool");
  return { ...schemas, tools: [tool], bindings: [binding] };
}

async function sigloopLoop(server: ScriptedServer, stream: boolean, workspace: string, executor: ReturnType<typeof createToolExecutor>): Promise<void> {
  const agent = createAgent({
    requestTurn: createTurnRequester({ apiKey: BENCH_KEY, baseURL: server.baseURL }),
    executor,
    model: "bench",
    workspace,
    maxTurns: TURNS + 5,
    stream,
  });
  const result = await agent.run("add 1 and 2, 200 times");
  if (result.kind !== "answer") throw new Error(`sigloop loop ended with ${result.kind}`);
}

async function runToolsLoop(server: ScriptedServer, stream: boolean, add: ToolDefinition): Promise<void> {
  const client = new OpenAI({ apiKey: BENCH_KEY, baseURL: server.baseURL });
  const tools = [
    {
      type: "function" as const,
      function: {
        ...add.function,
        parse: (input: string) => JSON.parse(input) as { a: number; b?: number },
        function: ({ a, b = 10 }: { a: number; b?: number }) => a + b,
      },
    },
  ];
  const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "add 1 and 2, 200 times" }];
  const runner = stream
    ? client.chat.completions.runTools({ model: "bench", messages, tools, stream: true, stream_options: { include_usage: true } }, { maxChatCompletions: TURNS + 5 })
    : client.chat.completions.runTools({ model: "bench", messages, tools }, { maxChatCompletions: TURNS + 5 });
  // The SDK adds an abort listener to the runner's signal on every request and never removes it; without
  // this, Node warns of a leak on every run. Raising the limit changes no work either side does.
  setMaxListeners(TURNS + 10, runner.controller.signal);
  if ((await runner.finalContent()) !== "done") throw new Error("runTools did not reach the answer");
}

async function bareLoop(server: ScriptedServer, stream: boolean, add: ToolDefinition): Promise<void> {
  const client = new OpenAI({ apiKey: BENCH_KEY, baseURL: server.baseURL });
  const tools = [add];
  const messages: ChatCompletionMessageParam[] = [{ role: "user", content: "add 1 and 2, 200 times" }];
  for (;;) {
    const message = stream
      ? (await client.chat.completions.stream({ model: "bench", messages, tools, stream_options: { include_usage: true } }).finalChatCompletion()).choices[0]?.message
      : (await client.chat.completions.create({ model: "bench", messages, tools })).choices[0]?.message;
    const calls = (message?.tool_calls ?? []).filter((call) => call.type === "function");
    if (calls.length === 0) return;
    messages.push({ role: "assistant", content: message?.content ?? null, tool_calls: calls });
    for (const call of calls) {
      const { a, b = 10 } = JSON.parse(call.function.arguments) as { a: number; b?: number };
      messages.push({ role: "tool", tool_call_id: call.id, content: String(a + b) });
    }
  }
}

async function benchLoop(work: string): Promise<void> {
  // runTools echoes the SDK's own `parsed` fields in history, which the strict server refuses; its
  // requests are accepted (and flagged) so that it can serve as the baseline at all.
  const server = await startScriptedServer({ script: (request) => loopScript(request), flagRuleViolationsOnly: true });
  const fixtureDir = path.join(root, "test", "fixtures", "executor");
  const fixture = (await import("../test/fixtures/executor/schemas.js")).fixtureSchemas;
  const workspace = path.join(work, "workspace");
  mkdirSync(workspace, { recursive: true });
  try {
    const rows: string[][] = [];
    // One executor, as in a real process: its validator is compiled in the warm-up round (the one-time
    // cost of compiling on first use is in the validation table), so the rounds measure the steady state.
    const schemas = addOnly(fixture);
    const executor = createToolExecutor({ schemas, schemasDir: fixtureDir });
    const add = schemas.tools[0]!;
    for (const stream of [false, true]) {
      const variants: [string, () => Promise<void>][] = [
        ["bare `create` loop", () => bareLoop(server, stream, add)],
        ["openai `runTools`", () => runToolsLoop(server, stream, add)],
        ["sigloop agent (Ajv-validated)", () => sigloopLoop(server, stream, workspace, executor)],
      ];
      const perTurn = new Map<string, number[]>(variants.map(([name]) => [name, []]));
      for (let round = 0; round < 7; round++) {
        // Rotated each round, so no loop always runs right after the same other one (GC, warm caches).
        for (const [name, loop] of [...variants.slice(round % 3), ...variants.slice(0, round % 3)]) {
          log(`loop ${stream ? "streamed" : "plain"} ${name}, round ${round + 1}`);
          const start = performance.now();
          await loop();
          // Round 0 warms up the JIT and the connection pool.
          if (round > 0) perTurn.get(name)?.push((performance.now() - start) / (TURNS + 1));
        }
      }
      const baseline = median(perTurn.get("openai `runTools`") ?? [NaN]);
      for (const [name] of variants) {
        const ms = median(perTurn.get(name) ?? [NaN]);
        rows.push([stream ? "streamed" : "plain", name, `${ms.toFixed(3)} ms`, `${(ms / baseline).toFixed(2)}x`]);
      }
    }
    printTable(
      `Runtime: loop overhead per turn (scripted server, zero latency, ${TURNS} tool-call turns + answer; every loop sends the same one tool definition, and asks for usage when streaming)`,
      ["responses", "loop", "per turn", "vs runTools"],
      rows,
    );
  } finally {
    await server.close();
  }
}

/** Milliseconds from spawning `command` (the executable, then its arguments) to the scripted server receiving its first request. */
async function timeToFirstRequest(server: ScriptedServer, command: readonly string[], cwd: string): Promise<number> {
  const before = server.requests.length;
  const start = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    env: { ...process.env, OPENAI_API_KEY: BENCH_KEY, OPENAI_BASE_URL: server.baseURL, AGENT_MODEL: "bench", NO_COLOR: "1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const arrived = server.waitForRequests(before + 1, 30_000).then(() => performance.now() - start);
  const first = await Promise.race([arrived, exited.then(() => undefined)]);
  const code = await exited;
  const ms = first ?? (server.requests.length > before ? await arrived : undefined);
  if (code !== 0 || ms === undefined) throw new Error(`${command.map((part) => path.basename(part)).join(" ")} exited with ${code} before a request: ${stderr.slice(0, 500)}`);
  return ms;
}

async function benchStartup(work: string, defaultSchemas: string, extendedSchemas: string): Promise<void> {
  const server = await startScriptedServer({ script: () => ({ content: "ok" }) });
  const floorFile = path.join(work, "floor.ts");
  writeFileSync(
    floorFile,
    [
      `import OpenAI from "openai";`,
      `const client = new OpenAI();`,
      `await client.chat.completions.create({ model: "bench", messages: [{ role: "user", content: "hi" }] });`,
      ``,
    ].join("\n"),
  );
  const plainFloorFile = path.join(work, "floor.mjs");
  writeFileSync(plainFloorFile, readFileSync(floorFile, "utf8"));
  const project = await installedProject();
  const runArgs = ["--no-stream", "--max-turns", "1", "hi"];
  // The process `npm run agent` starts, whatever its script is.
  const agent = (schemas: string) => [process.execPath, ...npmScriptArgs(root, "agent"), "--schemas", schemas, ...runArgs];
  // The floor runs its TypeScript file through tsx's loader, in one node process.
  const tsx = (file: string) => [process.execPath, "--import", "tsx/esm", file];
  const variants: [string, () => Promise<number>][] = [
    ["floor: tsx, import openai, one request", () => timeToFirstRequest(server, tsx(floorFile), work)],
    ["`npm run agent`, default tools (target ≤ 1.2x)", () => timeToFirstRequest(server, agent(defaultSchemas), work)],
    [`\`npm run agent\`, default + ${EXTRA_TOOLS} tools`, () => timeToFirstRequest(server, agent(extendedSchemas), work)],
    ["installed bin, compiled: node_modules/.bin/sigloop agent, built-in tools (target ≤ 0.6x)", () => timeToFirstRequest(server, [binPath(project), "agent", ...runArgs], project)],
    ["reference: plain node, import openai, one request", () => timeToFirstRequest(server, [process.execPath, plainFloorFile], work)],
  ];
  const times = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  try {
    for (let round = 0; round < 6; round++) {
      for (const [name, measure] of variants) {
        log(`start-up ${name}, round ${round + 1}`);
        const ms = await measure();
        if (round > 0) times.get(name)?.push(ms);
      }
    }
  } finally {
    await server.close();
  }
  const floor = median(times.get(variants[0]![0]) ?? [NaN]);
  printTable(
    "Runtime: start-up to the first request (median of 5 after a warm-up)",
    ["process", "to first request", "vs floor"],
    variants.map(([name]) => {
      const ms = median(times.get(name) ?? [NaN]);
      return [name, `${(ms / 1000).toFixed(3)} s`, `${(ms / floor).toFixed(2)}x`];
    }),
  );
}
