/**
 * One-line questions on the terminal, for approvals. In the chat they go through the chat's own readline
 * (a line typed while a question is open answers it, never becomes the next prompt); with a prompt on the
 * command line, a readline over stdin is made on the first question and closed with the run. Either way
 * a question ends with the run's signal (Ctrl-C) and at end of input, and only a line typed after the
 * question was shown answers it: lines that arrived before it (pasted ahead, typed while the model worked)
 * are dropped, neither answer nor prompt, and one line on the output says how many.
 */
import { createInterface, type Interface } from "node:readline";

export interface Questions {
  /** The line typed, or `undefined` at end of input or when `signal` aborts. */
  ask(question: string, signal: AbortSignal): Promise<string | undefined>;
  close(): void;
}

interface Output {
  write(text: string): unknown;
}

/**
 * The lines a readline gave while no question was open, in order: the chat reads its prompts from them
 * (`next`), and a question drops those still waiting (`dropTypedAhead`). Readline hands a line to an open
 * question itself and never emits it, so only lines typed outside a question arrive here.
 */
class PendingLines {
  private readonly lines: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private ended = false;

  constructor(private readonly rl: Interface, private readonly output: Output) {
    rl.on("line", (line: string) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting !== undefined) waiting(line);
      else this.lines.push(line);
    });
    rl.once("close", () => {
      this.ended = true;
      this.waiting?.(undefined);
      this.waiting = undefined;
    });
  }

  /** The next line, or `undefined` once input ended and every line was taken. */
  next(): Promise<string | undefined> {
    const line = this.lines.shift();
    if (line !== undefined || this.ended) return Promise.resolve(line);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** Drops the lines typed before a question, a half-typed one too, and says how many. */
  dropTypedAhead(): void {
    let dropped = this.lines.splice(0).length;
    if (this.rl.line !== "") {
      // Emptied in place: readline has no call for it that works on every terminal (with TERM=dumb it
      // ignores the editing keys), and the question redraws its line from this state.
      const editing = this.rl as unknown as { line: string; cursor: number };
      editing.line = "";
      editing.cursor = 0;
      dropped += 1;
    }
    if (dropped > 0) this.output.write(`${typedAheadNote(dropped)}\n`);
  }
}

/** The one line saying that lines typed ahead of a question were dropped. */
function typedAheadNote(count: number): string {
  const lines = count === 1 ? "1 line typed before the question was" : `${count} lines typed before the question were`;
  return `${lines} ignored: not taken as its answer, not run as a prompt. Type the answer now.`;
}

/** Each readline's pending lines, for the questions asked through it (the chat's prompts come from the same). */
const pendingOf = new WeakMap<Interface, PendingLines>();

function pendingLines(rl: Interface, output: Output): PendingLines {
  let pending = pendingOf.get(rl);
  if (pending === undefined) {
    pending = new PendingLines(rl, output);
    pendingOf.set(rl, pending);
  }
  return pending;
}

/**
 * The chat's prompts, read from its readline so that a question asked through the same readline
 * (`readlineQuestions`) can drop the lines typed ahead of it; `output` gets the note saying so.
 */
export function chatLines(rl: Interface, output: Output): { next(): Promise<string | undefined> } {
  const pending = pendingLines(rl, output);
  return { next: () => pending.next() };
}

/** Questions through an existing readline interface (the chat's, whose prompts come from `chatLines`). */
export function readlineQuestions(rl: Interface): Questions {
  let closed = false;
  rl.once("close", () => {
    closed = true;
  });
  return {
    ask: (question, signal) => askOn(rl, pendingOf.get(rl), () => closed, question, signal),
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
        pendingLines(rl, output);
      }
      return rl === undefined ? Promise.resolve(undefined) : askOn(rl, pendingOf.get(rl), () => closed, question, signal);
    },
    close() {
      rl?.close();
    },
  };
}

async function askOn(
  rl: Interface, pending: PendingLines | undefined, isClosed: () => boolean, question: string, signal: AbortSignal,
): Promise<string | undefined> {
  await inputReceived();
  if (isClosed() || signal.aborted) return undefined;
  pending?.dropTypedAhead();
  return await new Promise((resolve) => {
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

/**
 * Lets input that reached the process before the question be read first, so that it counts as typed
 * ahead: the input may have only just been resumed (the first question with a prompt on the command
 * line), and a read started during one poll of the event loop is first polled in the next. The check
 * phase after that next poll is the second `setImmediate`.
 */
function inputReceived(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
