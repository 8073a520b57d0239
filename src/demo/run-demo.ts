/**
 * Runs the demo: starts the scripted server in this process, then the real agent CLI as a child pointed at
 * it with a dummy key, sharing this process's stdout and stderr, so the CLI sees the user's terminal as it
 * would when run by hand (on one terminal the answer appears once, as it streams). The server says which
 * mistake the scripted model makes as each request arrives, just after the CLI's `turn N` line. Needs no
 * key and no network. Its workspace is sigloop's own folder (the model reads sigloop's README). From this
 * repository the CLI is `node --import tsx scripts/agent.ts` over `generated/schemas.json`; installed, it
 * is the compiled `sigloop agent` over the built-in tools' schemas that `npm pack` wrote into `dist/demo/`.
 * Regenerates the schemas first if they are missing or stale, so a fresh clone works.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { colorsWanted } from "../cli/progress-reporter.js";
import { loadSchemas } from "../runtime/execution/load-schemas.js";
import { startScriptedServer } from "../scripted-server/scripted-server.js";
import { helpRequested, unknownFlag, type FlagTable } from "../shared/command-flags.js";
import { commandLine, compiled, packageRoot } from "../shared/package-layout.js";
import { DEMO_PROMPT, DEMO_STEPS } from "./demo-script.js";
import { parseAgentArgs, type ProviderName } from "../cli/parse-agent-args.js";

const DUMMY_KEY = "sk-demo-not-a-real-key";

/** How to run sigloop's own commands as child processes: node's arguments before the command's flags. */
interface DemoCommands {
  schemas: string;
  gen: string[];
  agent: string[];
}

function demoCommands(): DemoCommands {
  if (compiled) {
    const bin = path.join(packageRoot, "dist", "src", "bin", "sigloop.js");
    const schemas = path.join(packageRoot, "dist", "demo", "schemas.json");
    return {
      schemas,
      gen: [bin, "gen", "--tools", path.join(packageRoot, "dist", "demo", "tools"), "--out", schemas],
      agent: [bin, "agent", "--schemas", schemas],
    };
  }
  return {
    schemas: path.join(packageRoot, "generated", "schemas.json"),
    gen: ["--import", "tsx", path.join(packageRoot, "scripts", "gen.ts")],
    agent: ["--import", "tsx", path.join(packageRoot, "scripts", "agent.ts")],
  };
}

/** The endpoint variables the agent reads for each provider, pointed at the scripted server. */
function providerEnv(provider: ProviderName, server: { baseURL: string; url: string }): NodeJS.ProcessEnv {
  if (provider === "anthropic") return { ANTHROPIC_API_KEY: DUMMY_KEY, ANTHROPIC_BASE_URL: server.url };
  return { OPENAI_API_KEY: DUMMY_KEY, OPENAI_BASE_URL: server.baseURL };
}

/** The demo's flags: the table an unknown flag is compared with. */
export const DEMO_FLAGS: FlagTable = { "--provider": "value", "--help": "switch" };

export const DEMO_USAGE = `Usage: ${commandLine("demo", "[--provider chat|anthropic|responses]")}

Runs the real agent CLI against a scripted model (a local fake server: no key, no network) that makes
each classic mistake once, and shows the loop recover. Progress on stderr; the answer alone on stdout.

Flags:
  --provider NAME  the API the scripted model speaks: chat, anthropic or responses (default chat)
  --help, -h       this text (nothing else is done)`;

/** `argv`: the demo's own flags; resolves to the exit code (2 for a flag it does not take). */
export async function runDemo(argv: readonly string[] = []): Promise<number> {
  const say = (text: string) => process.stderr.write(`${text}\n`);
  if (helpRequested(argv)) {
    process.stdout.write(`${DEMO_USAGE}\n`);
    return 0;
  }
  const parsed = parseAgentArgs(argv);
  const flags = parsed.ok ? parsed.args : undefined;
  if (flags === undefined || flags.prompt !== undefined || Object.keys(flags).some((key) => !["provider", "stream", "help"].includes(key))) {
    const stray = argv.find((token) => token.startsWith("-") && !(token.split("=")[0]! in DEMO_FLAGS));
    const problem =
      stray !== undefined
        ? unknownFlag(stray.split("=")[0]!, DEMO_FLAGS).message
        : parsed.ok
          ? `${commandLine("demo")} takes only --provider chat|anthropic|responses`
          : parsed.error;
    say(`error: ${problem}\nRun ${commandLine("demo", "--help")} for usage.`);
    return 2;
  }
  const provider = flags.provider ?? "chat";
  const commands = demoCommands();
  if (!loadSchemas(commands.schemas).ok) {
    say(`demo: generating the tool schemas first (${commandLine("gen")})…`);
    const genCode = await runNode(packageRoot, commands.gen, {});
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
  const providerFlag = provider === "chat" ? [] : ["--provider", provider];
  say(`$ ${commandLine("agent", `${providerFlag.map((flag) => `${flag} `).join("")}"${DEMO_PROMPT}"`)}\n`);
  try {
    return await runNode(packageRoot, [...commands.agent, ...providerFlag, "--workspace", packageRoot, DEMO_PROMPT], {
      ...providerEnv(provider, server),
      AGENT_MODEL: "scripted-demo-model",
    });
  } finally {
    await server.close();
  }
}

function runNode(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, ...env, INIT_CWD: cwd },
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("close", (code) => resolve(code ?? 1));
    child.on("error", () => resolve(1));
  });
}
