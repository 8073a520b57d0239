/**
 * The agent CLI on a pseudo-terminal: `script` runs it with stdin, stdout and stderr on one terminal,
 * and everything the terminal shows is collected. Tests send input only after what it answers has
 * appeared (`until`), so nothing depends on timing.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { projectRoot } from "./support.js";

export const hasScript = spawnSync("script", ["--version"]).status === 0;

export interface TerminalRun {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<number | null>;
  /** Everything shown so far. */
  screen(): string;
  /** How many times `text` has been shown. */
  count(text: string): number;
  /** Resolves once `condition` holds, checked after each piece of output. */
  until(condition: () => boolean): Promise<void>;
}

/** `scripts/agent.ts` with `argv`, on a terminal, with `env` (and PATH, TERM=dumb). */
export function agentOnTerminal(argv: readonly string[], env: NodeJS.ProcessEnv): TerminalRun {
  const command = [process.execPath, "--import", "tsx", path.join(projectRoot, "scripts/agent.ts"), ...argv].map((part) => `'${part}'`).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: projectRoot, env: { PATH: process.env.PATH, TERM: "dumb", ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let screen = "";
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    screen += chunk;
    waiters.splice(0).forEach((wake) => wake());
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return {
    child,
    exited,
    screen: () => screen,
    count: (text) => screen.split(text).length - 1,
    async until(condition) {
      while (!condition()) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
