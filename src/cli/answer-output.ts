/**
 * Where the CLI writes an answer. stdout carries exactly the answer (with the key masked) when it is a pipe
 * or a file; on a terminal control characters are escaped (terminal-safe.ts). When stdout and stderr are
 * the same terminal and the answer was just streamed there as progress, it is not written a second time.
 * "The same terminal": both are TTYs and `fstat` gives the same device (`rdev`) for their descriptors.
 */
import { fstatSync } from "node:fs";
import type { AgentEvent } from "../runtime/loop/agent-events.js";
import type { KeyMask } from "../runtime/model/key-mask.js";
import { escapeControls } from "./terminal-safe.js";

export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  fd?: number;
  /** A terminal's width. */
  columns?: number;
}

export interface AnswerOutput {
  /** Writes one answer (as `reportResult` gives it: ending with a newline). */
  write(text: string): void;
  /** Follows the streamed text of the current response. */
  onEvent(event: AgentEvent): void;
  /** The response being streamed was dropped and is sent again: its text so far is not the answer. */
  restart(): void;
}

export function createAnswerOutput(stdout: OutputStream, stderr: OutputStream, mask: KeyMask): AnswerOutput {
  const shared = sameTerminal(stdout, stderr);
  const onTerminal = stdout.isTTY === true;
  let streamed = "";
  return {
    write(text) {
      if (shared && streamed !== "" && (text === streamed || text === `${streamed}\n`)) return;
      const masked = mask.scrub(text);
      stdout.write(onTerminal ? escapeControls(masked) : masked);
    },
    onEvent(event) {
      if (event.type === "turn_start") streamed = "";
      if (event.type === "text_delta") streamed += event.text;
    },
    restart() {
      streamed = "";
    },
  };
}

/** Both TTYs on one terminal device (`npm run agent` in a shell); `2>log` or `| less` make them differ. */
export function sameTerminal(a: OutputStream, b: OutputStream): boolean {
  if (a.isTTY !== true || b.isTTY !== true || a.fd === undefined || b.fd === undefined) return false;
  try {
    const first = fstatSync(a.fd);
    const second = fstatSync(b.fd);
    return first.isCharacterDevice() && second.isCharacterDevice() && first.rdev === second.rdev;
  } catch {
    return false;
  }
}
