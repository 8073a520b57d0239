/**
 * Where the gen command writes (results to stdout, diagnostics and progress to stderr; paths shown
 * relative to `cwd`) and how it counts tools: shared by the one-shot run and `--watch`.
 */
export interface GenIo {
  cwd: string;
  /** Where the default tools folder and schemas file are (the project root); default `cwd`. */
  root?: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const processIo = (): GenIo => ({
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});

export function countTools(count: number): string {
  return `${count} tool${count === 1 ? "" : "s"}`;
}
