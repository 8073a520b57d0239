/**
 * Which typed line answers an approval question (terminal-questions.ts), over plain streams: the first
 * line typed after a question is shown answers it, when nothing was typed ahead too; a line typed between
 * two questions of one turn answers neither; end of input (Ctrl-D) answers with nothing. The same through
 * the chat's readline, whose prompts are the lines no question took.
 */
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { chatLines, readlineQuestions, stdinQuestions, type Questions } from "../../src/cli/terminal-questions.js";

const NOTE_ONE = "1 line typed before the question was ignored: not taken as its answer, not run as a prompt. Type the answer now.\n";

function terminal(): { input: PassThrough; shown: () => string; output: PassThrough } {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  return { input, output, shown: () => text };
}

/** Asks `question` and types `line` once the question is on the screen. */
async function answer(questions: Questions, screen: ReturnType<typeof terminal>, question: string, line: string | null): Promise<string | undefined> {
  const asked = questions.ask(question, new AbortController().signal);
  await until(() => screen.shown().includes(question));
  if (line === null) screen.input.end();
  else screen.input.write(`${line}\n`);
  return await asked;
}

async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 5000) throw new Error("the question never appeared");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("with a prompt on the command line", () => {
  it("a question asked while no line is waiting gets the first line typed after it, and no note", async () => {
    const screen = terminal();
    const questions = stdinQuestions(screen.input, screen.output);
    expect(await answer(questions, screen, "Run write_file? ", "y")).toBe("y");
    expect(screen.shown()).toBe("Run write_file? ");
    questions.close();
  });

  it("a line typed between two questions of one turn answers neither; the line typed after the second answers it", async () => {
    const screen = terminal();
    const questions = stdinQuestions(screen.input, screen.output);
    expect(await answer(questions, screen, "Run write_file? ", "y")).toBe("y");
    screen.input.write("y\n");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await answer(questions, screen, "Run edit_file? ", "n")).toBe("n");
    expect(screen.shown()).toBe(`Run write_file? ${NOTE_ONE}Run edit_file? `);
    questions.close();
  });

  it("end of input (Ctrl-D) at a question answers nothing, and so does every question after it", async () => {
    const screen = terminal();
    const questions = stdinQuestions(screen.input, screen.output);
    expect(await answer(questions, screen, "Run write_file? ", null)).toBeUndefined();
    expect(await questions.ask("Run edit_file? ", new AbortController().signal)).toBeUndefined();
    questions.close();
  });
});

describe("in the chat", () => {
  it("a line typed while a prompt runs is the next prompt when no question comes, and is dropped when one does", async () => {
    const screen = terminal();
    const rl = createInterface({ input: screen.input, output: screen.output, terminal: false });
    const lines = chatLines(rl, screen.output);
    const questions = readlineQuestions(rl);
    screen.input.write("first\nsecond\n");
    expect(await lines.next()).toBe("first");
    expect(await lines.next()).toBe("second");
    screen.input.write("third\n");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await answer(questions, screen, "Run write_file? ", "y")).toBe("y");
    expect(screen.shown()).toBe(`${NOTE_ONE}Run write_file? `);
    const next = lines.next();
    screen.input.write("fourth\n");
    expect(await next).toBe("fourth");
    rl.close();
    expect(await lines.next()).toBeUndefined();
  });
});
