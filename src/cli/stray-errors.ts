/**
 * A tool's late error must not end the run: a promise it rejected without awaiting (`void save()`), or a
 * timer that throws after its result. Node would exit 1 with a stack trace, losing every call in flight.
 * `reportStrayErrors` turns each into one stderr line (the tool's name when it arose in a tool call's
 * asynchronous context while calls are in progress, its message, the API keys and the credentials of `OPENAI_BASE_URL` masked, control
 * characters escaped) and the run or the server goes on. sigloop's own bugs still end the run: they
 * reject the command's own promise, which the bins turn into exit 70.
 */
import { strayErrorOrigin } from "../runtime/execution/tool-context.js";
import { keysMask } from "../runtime/model/key-masks.js";
import { maskURLCredentials } from "../runtime/model/url-credentials.js";
import { escapeControls } from "./terminal-safe.js";

/** The line for one stray error. */
export function strayErrorLine(error: unknown, tool: string | undefined, secrets: readonly string[], baseURL?: string): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const source = tool === undefined ? "an error nothing awaited (left behind by a tool or a library)" : `tool ${tool} failed after its call was answered (a promise it did not await, or a timer)`;
  return `warning: ${escapeControls(maskURLCredentials(keysMask(secrets), baseURL).scrub(`${source}: ${text}`))}; carrying on\n`;
}

/** Installs the process-wide handlers; returns the function that removes them. */
export function reportStrayErrors(stderr: { write(text: string): unknown }, secrets: readonly string[], baseURL?: string): () => void {
  const onError = (error: unknown): void => void stderr.write(strayErrorLine(error, strayErrorOrigin(), secrets, baseURL));
  process.on("unhandledRejection", onError);
  process.on("uncaughtException", onError);
  return () => {
    process.off("unhandledRejection", onError);
    process.off("uncaughtException", onError);
  };
}
