/**
 * Keeps stdout for protocol messages: after `divertStdout`, anything a tool (or a library) writes with
 * `process.stdout.write` or `console.log` goes to stderr instead, and the returned function is the only
 * way left to write to the real stdout. Output written to file descriptor 1 directly cannot be caught.
 */
export function divertStdout(stdout: NodeJS.WritableStream, stderr: { write(text: string): unknown }): (text: string) => Promise<void> {
  const writeProtocol = stdout.write.bind(stdout);
  const toStderr = (chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
    const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? Buffer.from(chunk).toString("utf8") : String(chunk);
    stderr.write(text);
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") queueMicrotask(() => (done as (error?: Error | null) => void)(null));
    return true;
  };
  stdout.write = toStderr as NodeJS.WritableStream["write"];
  return (text) =>
    new Promise<void>((resolve, reject) => {
      writeProtocol(text, (error?: Error | null) => (error ? reject(error) : resolve()));
    });
}
