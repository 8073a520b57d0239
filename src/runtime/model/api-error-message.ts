/**
 * The message an endpoint wrote into an error response, whatever the shape of its body: OpenAI's
 * `{"error":{"message"}}`, vLLM's `{"object":"error","message"}`, FastAPI's `{"detail":"Not Found"}` or
 * `{"detail":[{"msg"}, …]}` (a validation failure), `{"error":"…"}` (Ollama, llama.cpp, many proxies), else
 * the start of the raw body (an HTML page, plain text). The SDK keeps only OpenAI's shape and reports every
 * other JSON body as "status code (no body)", so the caller hands in the body it read.
 */

/** The raw body shown when no message field is found: an HTML page needs no more to be recognised. */
const RAW_BODY_CHARS = 300;

/** The API's own message in `body`, or `undefined` for an empty body. */
export function apiErrorMessage(body: string): string | undefined {
  if (body.trim() === "") return undefined;
  return messageField(parseJson(body)) ?? rawStart(body);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function messageField(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const { error, message, detail } = body;
  if (isRecord(error) && nonEmptyString(error.message)) return error.message;
  if (nonEmptyString(message)) return message;
  if (nonEmptyString(detail)) return detail;
  if (Array.isArray(detail)) {
    const messages = detail.flatMap((item) => (isRecord(item) && nonEmptyString(item.msg) ? [item.msg] : []));
    if (messages.length > 0) return messages.join("; ");
  }
  if (nonEmptyString(error)) return error;
  return undefined;
}

function rawStart(body: string): string {
  const characters = Array.from(body.trim());
  return characters.length > RAW_BODY_CHARS ? `${characters.slice(0, RAW_BODY_CHARS).join("")}…` : characters.join("");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}
