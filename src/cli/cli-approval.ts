/**
 * The CLI's `approve`: a tool named by `--allow` (or `*`), or answered "always" earlier in the process,
 * runs without asking; otherwise on a terminal the user is asked (approval-prompt.ts), and anywhere else
 * the call is refused, with a line on stderr saying how to allow it.
 */
import type { ApproveCall } from "../runtime/loop/agent.js";
import { approvalScreen, questionText, readAnswer } from "./approval-prompt.js";
import type { Questions } from "./terminal-questions.js";

export interface CliApprovalOptions {
  /** `--allow` names, `*` for every tool. */
  allow: readonly string[];
  /** How to ask; `undefined` when stdin and stderr are not both terminals. */
  questions: Questions | undefined;
  /** Writes the screen before a question (stderr, the key masked), after any pending progress. */
  show(text: string): void;
  /** A progress line. */
  note(text: string): void;
  colors: boolean;
}

export function createCliApprover(options: CliApprovalOptions): ApproveCall {
  const allowed = new Set(options.allow);
  const always = new Set<string>();
  return async (call, info) => {
    const tool = call.function.name;
    if (allowed.has("*") || allowed.has(tool) || always.has(tool)) return true;
    const { questions } = options;
    if (questions === undefined) {
      options.note(`  ${tool} needs approval, and there is no terminal to ask on: not run (--allow ${tool} runs it without asking)`);
      return false;
    }
    options.show(approvalScreen(call, info.preview, options.colors));
    for (;;) {
      const line = await questions.ask(questionText(tool), info.signal);
      if (line === undefined) return false;
      const answer = readAnswer(line);
      switch (answer.kind) {
        case "yes":
          return true;
        case "always":
          always.add(tool);
          return true;
        case "no":
          return answer.reason === undefined ? false : { deny: answer.reason };
        case "again":
          continue;
      }
    }
  };
}
