/**
 * The interactive chat (`npm run agent` on a terminal, no prompt): one agent, so history is kept across
 * prompts. Answers go to stdout, prompts and progress to stderr. Ctrl-C stops the running prompt and
 * returns to the chat; Ctrl-C at the prompt or Ctrl-D leaves. Lines typed while a prompt runs are the next
 * prompts, unless an approval question comes first: it drops them (terminal-questions.ts).
 */
import { createInterface, type Interface } from "node:readline";
import type { Agent } from "../runtime/loop/agent.js";
import type { ProgressReporter } from "./progress-reporter.js";
import { EXIT, reportResult } from "./report-result.js";
import { chatLines } from "./terminal-questions.js";

export interface InteractiveOptions {
  agent: Agent;
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where the prompt and the greeting go (stderr). */
  prompts: { write(text: string): unknown };
  stdout: { write(text: string): unknown };
  reporter: ProgressReporter;
  /** Gets the chat's readline once it exists (approval questions go through it). */
  onReadline?: (rl: Interface) => void;
}

export async function runInteractive(options: InteractiveOptions): Promise<number> {
  const { agent, reporter } = options;
  const rl = createInterface({
    input: options.input,
    output: options.prompts as NodeJS.WritableStream,
    terminal: options.input.isTTY === true,
  });
  const lines = chatLines(rl, options.prompts);
  options.onReadline?.(rl);
  let running: AbortController | undefined;
  let exitCode: number = EXIT.answer;
  // Input that ends while a prompt runs closes the interface; its remaining lines still come, but since
  // Node 24 prompting on a closed interface throws ("readline was closed").
  let closed = false;
  rl.on("close", () => {
    closed = true;
  });
  rl.on("SIGINT", () => {
    if (running) {
      running.abort();
      return;
    }
    exitCode = EXIT.interrupted;
    rl.close();
  });
  reporter.line("sigloop chat: type a prompt and press Enter; Ctrl-D to leave.");
  rl.setPrompt("> ");
  rl.prompt();
  for (let line = await lines.next(); line !== undefined; line = await lines.next()) {
    if (line.trim() !== "") {
      running = new AbortController();
      const report = reportResult(await agent.run(line, { signal: running.signal }));
      running = undefined;
      if (report.stdout !== undefined) options.stdout.write(report.stdout);
      if (report.message !== undefined) reporter.line(report.message);
    }
    if (!closed) rl.prompt();
  }
  return exitCode;
}
