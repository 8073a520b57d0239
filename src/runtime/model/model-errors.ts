/**
 * The one error type the model client rejects with, and the translation of whatever the SDK, fetch or a
 * broken body throws into it: a kind a program can branch on, and a message plus hint a user can act on.
 * Messages never hold the API key (it is scrubbed even when the API echoes it back) nor a stack trace.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { isContextLengthRefusal } from "../compaction/context-length-refusal.js";
import { apiErrorMessage } from "./api-error-message.js";
import { asOwnOpenAIError } from "./other-openai-copy.js";
import { scrubSecret } from "./key-mask.js";
import { transportRefusalIn } from "./transport-refusal.js";
import { MAX_RETRY_DELAY_MS, requestedDelayMs, type BodyCut } from "./watched-fetch.js";
import { jsonParseMessage } from "../../shared/json-parse-message.js";

// Where callers have always found it; the rule itself is key-mask.ts's.
export { scrubSecret };

export type ModelErrorKind = "http" | "connection" | "timeout" | "too_large" | "malformed" | "no_choices" | "aborted";

export interface ModelRequestErrorInit {
  kind: ModelErrorKind;
  message: string;
  hint?: string;
  status?: number;
  /** The failure is transient: trying the same request again may succeed. */
  retryable: boolean;
  /** The endpoint refused the request as longer than the model's context window (the loop compacts and resends). */
  contextLengthExceeded?: boolean;
}

/** A failed model request, ready for stderr: `message` says what happened, `hint` what to do next. */
export class ModelRequestError extends Error {
  readonly kind: ModelErrorKind;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly hint: string | undefined;
  readonly contextLengthExceeded: boolean;

  constructor(init: ModelRequestErrorInit) {
    super(init.message);
    this.name = "ModelRequestError";
    this.kind = init.kind;
    this.status = init.status;
    this.retryable = init.retryable;
    this.hint = init.hint;
    this.contextLengthExceeded = init.contextLengthExceeded ?? false;
  }
}

/** `message`, then the hint on its own line: what the CLI prints. */
export function describeModelError(error: ModelRequestError): string {
  return error.hint ? `${error.message}\nhint: ${error.hint}` : error.message;
}

/** What the translation needs to know about the request that failed. */
export interface FailureContext {
  /** The endpoint, as the user configured it (`OPENAI_BASE_URL`). */
  baseURL: string;
  /** Scrubbed from every message. */
  apiKey: string;
  /** The caller's signal was aborted (Ctrl-C). */
  userAborted: boolean;
  /** A bound on the response body cut it short (it stalled, never ended, or grew too large). */
  cut?: BodyCut;
  /** How many HTTP attempts were made for this request (SDK retries included). */
  attempts: number;
  /** The body of the error response, when one was read: its message is shown whatever the body's shape. */
  errorBody?: string;
}

const MAX_API_MESSAGE = 400;

/** Turns anything thrown while requesting a turn (by this copy of the `openai` SDK or another) into a `ModelRequestError`. */
export function toModelRequestError(error: unknown, context: FailureContext): ModelRequestError {
  const made = classify(asOwnOpenAIError(error), context);
  const scrub = (text: string | undefined) => (text === undefined ? undefined : scrubSecret(text, context.apiKey));
  return new ModelRequestError({
    kind: made.kind,
    message: scrub(made.message) ?? "",
    retryable: made.retryable,
    ...(made.contextLengthExceeded ? { contextLengthExceeded: true } : {}),
    ...(made.hint !== undefined ? { hint: scrub(made.hint) } : {}),
    ...(made.status !== undefined ? { status: made.status } : {}),
  });
}

function classify(error: unknown, context: FailureContext): ModelRequestErrorInit {
  if (context.userAborted) return aborted();
  const url = displayURL(context.baseURL);
  const tries = context.attempts > 1 ? ` (after ${context.attempts} attempts)` : "";
  if (context.cut !== undefined) return bodyCut(context.cut, url);
  if (error instanceof APIUserAbortError) return aborted();
  if (error instanceof ModelRequestError) return error;
  if (error instanceof APIConnectionTimeoutError) {
    return {
      kind: "timeout",
      message: `timeout: no response from ${url}${tries}`,
      hint: "Check that the endpoint is up and not overloaded (OPENAI_BASE_URL).",
      retryable: true,
    };
  }
  if (error instanceof APIConnectionError) {
    const refusal = transportRefusalIn(error);
    if (refusal !== undefined) return { kind: "connection", message: `could not reach ${url} ${refusal.reason}${tries}`, hint: refusal.hint, retryable: true };
    const cause = causeText(error);
    const neverConnected = cause !== "connection reset";
    return {
      kind: "connection",
      message: `${neverConnected ? "could not connect to" : "the connection to"} ${url}${neverConnected ? ":" : " failed before a response:"} ${cause}${tries}`,
      hint: cause.startsWith("its TLS certificate")
        ? "If the endpoint's certificate is signed by your own CA, point NODE_EXTRA_CA_CERTS at that CA's PEM file."
        : "Check that the server is running and that OPENAI_BASE_URL points at its API root (e.g. http://localhost:8080/v1).",
      retryable: true,
    };
  }
  if (error instanceof APIError) return httpFailure(error, url, tries, context.errorBody);
  if (error instanceof SyntaxError) {
    return {
      kind: "malformed",
      message: `malformed response from ${url}: not valid JSON / SSE (${oneLine(jsonParseMessage(error))})`,
      hint: "The endpoint or a proxy in front of it sent a broken body; check OPENAI_BASE_URL.",
      retryable: true,
    };
  }
  if (error instanceof TypeError) {
    return {
      kind: "connection",
      message: `the connection to ${url} broke in the middle of the response (${causeText(error)}); the partial response was dropped`,
      hint: "The endpoint or the network dropped the connection; try again.",
      retryable: true,
    };
  }
  return {
    kind: "malformed",
    message: `unexpected failure reading the response from ${url}: ${oneLine(error instanceof Error ? error.message : String(error))}`,
    retryable: true,
  };
}

function bodyCut(cut: BodyCut, url: string): ModelRequestErrorInit {
  switch (cut.bound) {
    case "idle":
      return {
        kind: "timeout",
        message: `timeout: ${url} sent nothing for ${seconds(cut.limit)} in the middle of its response; the partial response was dropped`,
        hint: "The endpoint stalled. A slow local model may need a longer idle timeout.",
        retryable: true,
      };
    case "duration":
      return {
        kind: "timeout",
        message: `timeout: the response from ${url} did not end within ${seconds(cut.limit)} of its start; the partial response was dropped`,
        hint: "The endpoint kept the response going without finishing it. A model that writes very long answers may need a longer response timeout.",
        retryable: true,
      };
    case "size":
      return {
        kind: "too_large",
        message: `response too large: ${url} sent more than ${bytes(cut.limit)} in one response; the partial response was dropped`,
        hint: "No completion is that large; check the endpoint. If such responses are expected, raise the response size limit.",
        retryable: true,
      };
  }
}

function bytes(count: number): string {
  const mib = count / (1024 * 1024);
  return mib >= 1 ? `${+mib.toFixed(1)} MB (${count} bytes)` : `${count} bytes`;
}

function aborted(): ModelRequestErrorInit {
  return { kind: "aborted", message: "interrupted: the model request was aborted", retryable: false };
}

function httpFailure(error: APIError, url: string, tries: string, errorBody: string | undefined): ModelRequestErrorInit {
  const apiMessage = apiMessageOf(error, errorBody);
  const status = error.status;
  if (status === undefined) {
    const contextLengthExceeded = isContextLengthRefusal({ code: error.code, type: error.type, message: apiMessage });
    return {
      kind: "http",
      message: `the API reported an error in the middle of its response: ${apiMessage}${typeof error.code === "string" && error.code !== "" ? ` (${error.code})` : ""}`,
      retryable: !contextLengthExceeded && isTransientErrorCode(error.code),
      ...(contextLengthExceeded ? { contextLengthExceeded } : {}),
    };
  }
  const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
  const contextLengthExceeded = isContextLengthRefusal({ code: error.code, type: error.type, message: apiMessage });
  const delayMs = error.headers ? requestedDelayMs(error.headers) : undefined;
  const wait = delayMs !== undefined && delayMs > MAX_RETRY_DELAY_MS ? ` (the server asks to wait ${seconds(delayMs)} before retrying)` : "";
  return {
    kind: "http",
    status,
    message: `HTTP ${status} from ${url}: ${apiMessage}${retryable ? tries : ""}${wait}`,
    retryable,
    ...(contextLengthExceeded ? { contextLengthExceeded } : {}),
    ...hintFor(status),
  };
}

/**
 * The error codes of an error inside a 200 response (an `error` event, an `error` member) that say trying
 * again may succeed: none at all, OpenAI's `server_error` and `rate_limit_exceeded` (the rule `response.failed`
 * follows too), Anthropic's `overloaded_error`, `api_error`, `rate_limit_error` and `timeout_error` (the
 * types of its 529, 500, 429 and 504). Any other (`insufficient_quota`, `invalid_prompt`,
 * `invalid_request_error`, `authentication_error`…) says the request itself failed: resending it would fail
 * the same way, so it is not resent.
 */
const TRANSIENT_ERROR_CODES: ReadonlySet<string> = new Set(["", "server_error", "rate_limit_exceeded", "overloaded_error", "api_error", "rate_limit_error", "timeout_error"]);

export function isTransientErrorCode(code: unknown): boolean {
  return code === undefined || code === null || (typeof code === "string" && TRANSIENT_ERROR_CODES.has(code));
}

function hintFor(status: number): { hint?: string } {
  if (status === 401 || status === 403) return { hint: "Set OPENAI_API_KEY to a valid key for this endpoint." };
  if (status === 404) {
    return { hint: "Set AGENT_MODEL or --model to a model this endpoint serves (and check that OPENAI_BASE_URL ends at the API root, e.g. /v1)." };
  }
  if (status === 429) return { hint: "Rate limited or out of quota: wait a little, or check the account's limits." };
  if (status >= 500) return { hint: "The endpoint is failing or overloaded; try again later." };
  return {};
}

function apiMessageOf(error: APIError, errorBody: string | undefined): string {
  const body = error.error as { message?: unknown } | undefined;
  const fromBody = error.status !== undefined && errorBody !== undefined ? apiErrorMessage(errorBody) : undefined;
  const text = fromBody ?? (typeof body?.message === "string" ? body.message : error.message.replace(/^\d{3} /, ""));
  return oneLine(text) || "(no message)";
}

/** OpenSSL's verification failures as Node reports them, e.g. `SELF_SIGNED_CERT_IN_CHAIN`, `UNABLE_TO_GET_ISSUER_CERT_LOCALLY`. */
const UNTRUSTED_CERTIFICATE = /CERT|UNABLE_TO_VERIFY|SELF_SIGNED/;

function causeText(error: Error): string {
  const seen = new Set<unknown>();
  let current: unknown = error.cause;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (code === "ECONNREFUSED") return "connection refused";
    if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return "connection reset";
    if (code === "ENOTFOUND") return "host not found";
    if (typeof code === "string" && UNTRUSTED_CERTIFICATE.test(code)) return `its TLS certificate is not trusted (${code})`;
    if (typeof code === "string") return code;
    current = current.cause;
  }
  return oneLine(error.message);
}

/** One line, at most a few hundred characters: API messages can be whole HTML pages. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_API_MESSAGE ? `${flat.slice(0, MAX_API_MESSAGE)}…` : flat;
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** The URL without credentials or query, safe to print. */
export function displayURL(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.origin}${url.pathname}`.replace(/\/$/, "");
  } catch {
    return baseURL;
  }
}
