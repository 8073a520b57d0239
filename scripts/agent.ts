/** `npm run agent -- [flags] "prompt"`: see docs/agent.md. */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { EXIT } from "../src/cli/report-result.js";
import { runAgentCli } from "../src/cli/run-agent-cli.js";
import { scrubSecret } from "../src/runtime/model/model-errors.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const envFile = path.join(projectRoot, ".env");
// Node's loader keeps variables already set, so the real environment wins over .env.
if (existsSync(envFile)) {
  try {
    process.loadEnvFile(envFile);
  } catch (error) {
    process.stderr.write(`error: cannot read ${envFile} (${(error as NodeJS.ErrnoException).code ?? String(error)}); fix or remove it\n`);
    process.exit(EXIT.usage);
  }
}

/** After Ctrl-C the run ends within moments; a tool that ignores its signal must not keep the process alive. */
const FORCED_EXIT_MS = 1500;

const exitCode = await runAgentCli({
  argv: process.argv.slice(2),
  env: process.env,
  // `npm run` starts scripts in the project root; INIT_CWD is where the user typed the command.
  cwd: process.env.INIT_CWD ?? process.cwd(),
  projectRoot,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  onInterrupt(handler) {
    const onSignal = () => {
      handler();
      setTimeout(() => process.exit(130), FORCED_EXIT_MS).unref();
      process.once("SIGINT", () => process.exit(130));
    };
    process.once("SIGINT", onSignal);
    return () => process.off("SIGINT", onSignal);
  },
}).catch((error: unknown) => {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.stderr.write(`internal error (a bug in sigloop, please report it): ${scrubSecret(text, process.env.OPENAI_API_KEY ?? "")}\n`);
  return EXIT.internal;
});
process.exit(exitCode);
