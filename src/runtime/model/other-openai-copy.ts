/**
 * Errors thrown by another copy of the `openai` SDK, as errors of the copy sigloop runs on. The installed
 * package carries its own copy, bundled into its JavaScript (docs/package.md, "Start-up"), so a program's
 * own client (`createTurnRequester({ client })`, built from the program's `openai`) throws instances of
 * classes that sigloop's `instanceof` does not know. Each is recognised by the SDK's exported class names
 * along its prototype chain (the most specific first) and made again from its public fields; anything
 * else is returned as it is. A program minified so far that those names are gone gets the classification
 * of an unknown failure.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, OpenAIError } from "openai";

export function asOwnOpenAIError(error: unknown): unknown {
  if (error instanceof OpenAIError || !(error instanceof Error)) return error;
  const names = classNames(error);
  if (!names.has("OpenAIError")) return error;
  if (names.has("APIUserAbortError")) return new APIUserAbortError({ message: error.message });
  if (names.has("APIConnectionTimeoutError")) return new APIConnectionTimeoutError({ message: error.message });
  if (names.has("APIConnectionError")) return new APIConnectionError({ message: error.message, ...(error.cause instanceof Error ? { cause: error.cause } : {}) });
  if (names.has("APIError")) {
    const { status, error: body, headers } = error as Error & { status?: number; error?: unknown; headers?: unknown };
    // The message was made from the status and the body already; made again, it would say the status twice.
    return new APIError(status, body as object | undefined, error.message.replace(/^\d{3} /, ""), headersOf(headers));
  }
  return error;
}

function classNames(error: Error): Set<string> {
  const names = new Set<string>();
  for (let proto: unknown = Object.getPrototypeOf(error); proto !== null && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    // A bundler may rename a class it rewrites (esbuild: `_APIError`, or `APIError2` beside another APIError).
    if (typeof name === "string") names.add(name.replace(/^_+/, "").replace(/\d+$/, ""));
  }
  return names;
}

/** Releases before 5 kept an error's headers as a plain object; this copy reads them as `Headers`. */
function headersOf(headers: unknown): Headers | undefined {
  if (headers instanceof Headers) return headers;
  if (typeof headers !== "object" || headers === null) return undefined;
  const entries = Object.entries(headers).filter((entry): entry is [string, string] => typeof entry[1] === "string");
  return new Headers(entries);
}
