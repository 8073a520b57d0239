/**
 * What the terminal shows before a call that needs approval: the tool, its arguments and, for the file
 * tools, the change as a unified diff, shortened past 200 lines with a note and each line past 500
 * characters with another (one huge line would scroll the rest of the screen away); coloured when colours
 * are wanted, with every control character from the model or a file shown escaped. And how a typed answer is
 * read: `y` runs it, `n` (optionally followed by a reason for the model) refuses it, `a` runs it and
 * every later call of that tool, an empty line refuses, anything else asks again.
 */
import type { ToolCall } from "../runtime/loop/messages.js";
import { escapeControls } from "./terminal-safe.js";

/** Diff lines shown before the rest is left out. */
export const SHOWN_DIFF_LINES = 200;
/** Characters (UTF-16 units) of one diff line shown before the rest of it is left out. */
export const SHOWN_LINE_CHARS = 500;
const ARGUMENTS_CHARS = 600;

export type Answer = { kind: "yes" } | { kind: "always" } | { kind: "no"; reason?: string } | { kind: "again" };

export function readAnswer(line: string): Answer {
  const text = line.trim();
  if (text === "") return { kind: "no" };
  if (/^(y|yes)$/i.test(text)) return { kind: "yes" };
  if (/^(a|always)$/i.test(text)) return { kind: "always" };
  const no = /^(?:n|no)(?:\s+(.*))?$/is.exec(text);
  if (no === null) return { kind: "again" };
  const reason = no[1]?.trim() ?? "";
  return reason === "" ? { kind: "no" } : { kind: "no", reason };
}

/** The lines before the question: tool and arguments, then the preview. */
export function approvalScreen(call: ToolCall, preview: string | undefined, colors: boolean): string {
  const paint = (code: number) => (text: string) => (colors ? `\u001b[${code}m${text}\u001b[0m` : text);
  const args = call.function.arguments;
  const shownArgs = args.length > ARGUMENTS_CHARS ? `${args.slice(0, ARGUMENTS_CHARS)}… (${args.length} chars)` : args;
  const lines = [`${paint(1)(`approval needed: ${escapeControls(call.function.name)}`)}(${escapeControls(shownArgs)})`];
  if (preview !== undefined) lines.push(...diffLines(preview, colors));
  return `${lines.join("\n")}\n`;
}

export function questionText(tool: string): string {
  return `Run ${escapeControls(tool)}? y = yes, n = no (n and a reason: the model reads it), a = always ${escapeControls(tool)} from now on: `;
}

function diffLines(preview: string, colors: boolean): string[] {
  // Only the shown lines are cut out; the rest is counted, not split (a new 1 MB file is 21,000 lines).
  const shown: string[] = [];
  let from = 0;
  while (shown.length < SHOWN_DIFF_LINES) {
    const at = preview.indexOf("\n", from);
    shown.push(colorLine(shownLine(preview.slice(from, at === -1 ? undefined : at)), shown.length, colors));
    if (at === -1) return shown;
    from = at + 1;
  }
  let all = SHOWN_DIFF_LINES + 1;
  for (let at = preview.indexOf("\n", from); at !== -1; at = preview.indexOf("\n", at + 1)) all += 1;
  shown.push(`… ${all - SHOWN_DIFF_LINES} more lines of the diff not shown (${all} lines in all)`);
  return shown;
}

/** One line of the diff, escaped, cut at `SHOWN_LINE_CHARS` (never inside a character) with a note. */
function shownLine(line: string): string {
  if (line.length <= SHOWN_LINE_CHARS) return escapeControls(line);
  const end = /[\ud800-\udbff]/.test(line.charAt(SHOWN_LINE_CHARS - 1)) ? SHOWN_LINE_CHARS - 1 : SHOWN_LINE_CHARS;
  return `${escapeControls(line.slice(0, end))}… (${line.length - end} more characters on this line)`;
}

/** `index`: the line's place in the preview; only its first two lines are the headers (a content line can look like one). */
function colorLine(line: string, index: number, colors: boolean): string {
  if (!colors) return line;
  const header = index < 2 && (line.startsWith("+++") || line.startsWith("---"));
  const code = header ? 1 : line.startsWith("+") ? 32 : line.startsWith("-") ? 31 : line.startsWith("@@") ? 36 : 0;
  return code === 0 ? line : `\u001b[${code}m${line}\u001b[0m`;
}
