/**
 * Text arriving in chunks, handed on one line at a time (without its `\n` or `\r\n`). A line longer than
 * `MAX_LINE` is handed on in pieces of that size, so a server writing without line breaks cannot grow our
 * memory. `end()` hands on what is left.
 */
const MAX_LINE = 4000;

export interface LineSplitter {
  push(text: string): void;
  end(): void;
}

export function createLineSplitter(onLine: (line: string) => void): LineSplitter {
  let pending = "";
  /** A whole line: a long one (its break in the chunk that made it long) in pieces too. */
  const handOn = (line: string): void => {
    let rest = line;
    for (; rest.length > MAX_LINE; rest = rest.slice(MAX_LINE)) onLine(rest.slice(0, MAX_LINE));
    onLine(rest);
  };
  return {
    push(text) {
      pending += text;
      let newline: number;
      while ((newline = pending.indexOf("\n")) !== -1) {
        handOn(pending.slice(0, newline).replace(/\r$/, ""));
        pending = pending.slice(newline + 1);
      }
      while (pending.length > MAX_LINE) {
        onLine(pending.slice(0, MAX_LINE));
        pending = pending.slice(MAX_LINE);
      }
    },
    end() {
      if (pending !== "") onLine(pending);
      pending = "";
    },
  };
}
