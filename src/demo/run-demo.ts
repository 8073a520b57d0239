/**
 * Runs the demo: starts the scripted server in this process, then the real CLI (`tsx scripts/agent.ts`)
 * as a child pointed at it with a dummy key, its stdout and stderr passed through. Needs no key and no
 * network. Regenerates the tool schemas first if they are missing or stale, so a fresh clone works.
 */
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { colorsWanted } from "../cli/progress-reporter.js";
import path from "node:path";
import { loadSchemas } from "../runtime/execution/load-schemas.js";
import { startScriptedServer } from "../scripted-server/scripted-server.js";
import { DEMO_PROMPT, DEMO_STEPS } from "./demo-script.js";

const DUMMY_KEY = "sk-demo-not-a-real-key";

export async function runDemo(projectRoot: string): Promise<number> {
  const say = (text: string) => process.stderr.write(`${text}\n`);
  if (!loadSchemas(path.join(projectRoot, "generated", "schemas.json")).ok) {
    say("demo: generating the tool schemas first (npm run gen)…");
    const genCode = await runTsx(projectRoot, [path.join(projectRoot, "scripts", "gen.ts")], {});
    if (genCode !== 0) return genCode;
  }
  const server = await startScriptedServer({ script: DEMO_STEPS.map((step) => step.reply) });
  say("sigloop demo: the model is SCRIPTED (a local fake server, no key, no network), and it makes each classic mistake once:");
  DEMO_STEPS.forEach((step, index) => say(`  ${index + 1}. ${step.mistake}`));
  say(`Watch the real agent CLI recover from each one below (progress on stderr; the answer alone on stdout).\n`);
  say(`$ npm run agent -- "${DEMO_PROMPT}"\n`);
  try {
    return await runTsx(projectRoot, [path.join(projectRoot, "scripts", "agent.ts"), "--workspace", projectRoot, DEMO_PROMPT], {
      OPENAI_API_KEY: DUMMY_KEY,
      OPENAI_BASE_URL: server.baseURL,
      AGENT_MODEL: "scripted-demo-model",
    }, true);
  } finally {
    await server.close();
  }
}

/** Before each `turn N` line of the CLI's progress, says which mistake the scripted model makes in it. */
function narrate(stderr: Readable): void {
  const colors = colorsWanted(process.stderr, process.env);
  const mark = (text: string) => (colors ? `\u001b[35m${text}\u001b[0m` : text);
  let atLineStart = true;
  stderr.setEncoding("utf8").on("data", (chunk: string) => {
    const narrated = chunk.replace(TURN_LINE, (match: string, start: string, turn: string, offset: number) => {
      const step = DEMO_STEPS[Number(turn) - 1];
      if (step === undefined || (offset === 0 && !atLineStart)) return match;
      return `${start}${mark(`▶ the scripted model's request ${turn}: ${step.mistake}`)}\n${match.slice(start.length)}`;
    });
    process.stderr.write(narrated);
    atLineStart = chunk.endsWith("\n");
  });
}

const TURN_LINE = /(^|\n)(?:\u001b\[1m)?turn (\d+)/g;

function runTsx(cwd: string, args: string[], env: NodeJS.ProcessEnv, narrated = false): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], {
      cwd,
      // The CLI's stderr is piped through the narrator; it keeps its colours when the real stderr has them.
      env: { ...process.env, ...env, INIT_CWD: cwd, ...(narrated && colorsWanted(process.stderr, process.env) ? { FORCE_COLOR: "1" } : {}) },
      stdio: ["ignore", "inherit", narrated ? "pipe" : "inherit"],
    });
    if (narrated && child.stderr) narrate(child.stderr);
    child.on("close", (code) => resolve(code ?? 1));
    child.on("error", () => resolve(1));
  });
}
