/**
 * Runs the demo: starts the scripted server in this process, then the real CLI (`node --import tsx scripts/agent.ts`)
 * as a child pointed at it with a dummy key, sharing this process's stdout and stderr, so the CLI sees
 * the user's terminal as it would when run by hand (on one terminal the answer appears once, as it
 * streams). The server says which mistake the scripted model makes as each request arrives, just after
 * the CLI's `turn N` line. Needs no key and no network. Regenerates the tool schemas first if they are
 * missing or stale, so a fresh clone works.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { colorsWanted } from "../cli/progress-reporter.js";
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
  const colors = colorsWanted(process.stderr, process.env);
  const mark = (text: string) => (colors ? `\u001b[35m${text}\u001b[0m` : text);
  const server = await startScriptedServer({
    script: DEMO_STEPS.map((step) => step.reply),
    onRequest: ({ index }) => {
      const step = DEMO_STEPS[index];
      if (step !== undefined) say(mark(`▶ the scripted model's request ${index + 1}: ${step.mistake}`));
    },
  });
  say("sigloop demo: the model is SCRIPTED (a local fake server, no key, no network), and it makes each classic mistake once:");
  DEMO_STEPS.forEach((step, index) => say(`  ${index + 1}. ${step.mistake}`));
  say(`Watch the real agent CLI recover from each one below (progress on stderr; the answer alone on stdout when it is redirected).\n`);
  say(`$ npm run agent -- "${DEMO_PROMPT}"\n`);
  try {
    return await runTsx(projectRoot, [path.join(projectRoot, "scripts", "agent.ts"), "--workspace", projectRoot, DEMO_PROMPT], {
      OPENAI_API_KEY: DUMMY_KEY,
      OPENAI_BASE_URL: server.baseURL,
      AGENT_MODEL: "scripted-demo-model",
    });
  } finally {
    await server.close();
  }
}

function runTsx(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], {
      cwd,
      env: { ...process.env, ...env, INIT_CWD: cwd },
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("close", (code) => resolve(code ?? 1));
    child.on("error", () => resolve(1));
  });
}
