/**
 * One-line questions on the terminal, for approvals. In the chat they go through the chat's own readline
 * (a line typed while a question is open answers it, never becomes the next prompt); with a prompt on the
 * command line, a readline over stdin is made on the first question and closed with the run. Either way
 * a question ends with the run's signal (Ctrl-C) and at end of input.
 */
import { createInterface, type Interface } from "node:readline";

export interface Questions {
  /** The line typed, or `undefined` at end of input or when `signal` aborts. */
  ask(question: string, signal: AbortSignal): Promise<string | undefined>;
  close(): void;
}

/** Questions through an existing readline interface. */
export function readlineQuestions(rl: Interface): Questions {
  let closed = false;
  rl.once("close", () => {
    closed = true;
  });
  return {
    ask: (question, signal) => askOn(rl, () => closed, question, signal),
    close: () => undefined,
  };
}

/** Questions on `input`, echoed by the terminal itself (Ctrl-C stays the terminal's interrupt). */
export function stdinQuestions(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Questions {
  let rl: Interface | undefined;
  let closed = false;
  return {
    ask(question, signal) {
      if (rl === undefined && !closed) {
        rl = createInterface({ input, output, terminal: false });
        rl.once("close", () => {
          closed = true;
        });
      }
      return rl === undefined ? Promise.resolve(undefined) : askOn(rl, () => closed, question, signal);
    },
    close() {
      rl?.close();
    },
  };
}

function askOn(rl: Interface, isClosed: () => boolean, question: string, signal: AbortSignal): Promise<string | undefined> {
  if (isClosed() || signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const done = (line: string | undefined): void => {
      rl.off("close", onClose);
      signal.removeEventListener("abort", onAbort);
      resolve(line);
    };
    const onClose = (): void => done(undefined);
    const controller = new AbortController();
    const onAbort = (): void => {
      controller.abort();
      done(undefined);
    };
    rl.once("close", onClose);
    signal.addEventListener("abort", onAbort, { once: true });
    rl.question(question, { signal: controller.signal }, (line) => done(line));
  });
}
