/**
 * When the reader of sigloop's stdout or stderr goes away (`sigloop agent … | head -1`, a terminal
 * closed, a test runner that stopped waiting), nothing more can be said: the process ends at once with
 * exit 141 (128 + SIGPIPE, what a shell reports for a pipeline's writer), rather than taking the `EPIPE`
 * for a stray error and writing a warning about it to the same closed stream, again and again.
 */
export const EXIT_OUTPUT_CLOSED = 141;

export function endWhenOutputCloses(streams: readonly NodeJS.WritableStream[]): void {
  for (const stream of streams) stream.on("error", () => process.exit(EXIT_OUTPUT_CLOSED));
}
