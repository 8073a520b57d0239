/**
 * A scripted model server for tests, the demo and the benchmark: real HTTP on 127.0.0.1, JSON and SSE,
 * driven by a script of replies and faults, and as strict as a picky gateway about the history it
 * receives. It speaks three dialects, chosen by the request's path: OpenAI Chat Completions
 * (`POST /v1/chat/completions`), Anthropic Messages (`POST /v1/messages`, anthropic-rules.ts and
 * anthropic-replies.ts) and OpenAI Responses (`POST /v1/responses`, responses-rules.ts and
 * responses-replies.ts); one script serves all three. It records every request so tests can assert on
 * what the client really sent.
 *
 * It imports nothing from vitest: `scripts/demo.ts` and the benchmark start it outside tests.
 *
 * @example
 * const server = await startScriptedServer({
 *   script: [
 *     { toolCalls: [{ id: "call_1", name: "add", arguments: '{"a":1,"b":2}' }] },
 *     { content: "3" },
 *   ],
 * });
 * const client = new OpenAI({ apiKey: "test", baseURL: server.baseURL });
 * // … run the agent …
 * server.requests[1]?.body.messages; // the history the server saw
 * await server.close();
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { missingItemsRefusal } from "./array-items.js";
import { contextLimitRefusal, type ContextLimit } from "./context-limit.js";
import { openReplyBody, type ContentCoding } from "./reply-encoding.js";
import { findViolations } from "./request-rules.js";
import type { ChatRequestBody, Dialect, StatusFault } from "./wire-shapes.js";
import { ScriptPlayer, type ScriptedToolCall, type StreamShape, type ReplyStep, type BrokenResponseFault, type EndlessFault, type FaultStep, type ScriptStep, type Script, type RecordedRequest } from "./script.js";
import { pieces } from "./text-pieces.js";
import { anthropicViolations, ThinkingLedger } from "./anthropic-rules.js";
import { anthropicErrorBody, anthropicErrorType, anthropicEvent, anthropicEvents, anthropicMessageBody } from "./anthropic-replies.js";
import { responsesViolations, type IssuedReasoning } from "./responses-rules.js";
import { responseEnvelope, responsesBody, responsesEvent, responsesEvents } from "./responses-replies.js";
import { sameWithoutCacheMarks } from "./same-without-cache-marks.js";

export type { ChatRequestBody, Dialect, StatusFault } from "./wire-shapes.js";
export type { ScriptedToolCall, StreamShape, ReplyStep, BrokenResponseFault, EndlessFault, FaultStep, ScriptStep, Script, RecordedRequest } from "./script.js";

const DIALECT_PATHS: ReadonlyArray<[string, Dialect]> = [
  ["/v1/chat/completions", "chat"],
  ["/v1/messages", "anthropic"],
  ["/v1/responses", "responses"],
];


export interface ScriptedServerOptions {
  script: Script;
  /** If set, any other bearer token gets a 401 (whose message echoes the wrong key, as some gateways do). */
  apiKey?: string;
  /** If set, any other model gets a 404 `model_not_found`. */
  models?: readonly string[];
  /** Answer a changed tools list within one conversation with a 400 instead of only flagging it. */
  rejectToolsChange?: boolean;
  /**
   * Answer requests that break the message rules anyway, only flagging the problems (no 400). For the
   * benchmark's `runTools` baseline, which echoes SDK-only fields (`parsed`, `parsed_arguments`) back in
   * history; tests leave it off so that every rule is enforced.
   */
  flagRuleViolationsOnly?: boolean;
  /** Called as each request arrives, before it is answered (the demo narrates each step from here). */
  onRequest?: (request: RecordedRequest) => void;
  /** A context window: longer requests get a provider's 400 "too long" refusal (src/scripted-server/context-limit.ts). */
  contextLimit?: ContextLimit;
  /** Serve HTTPS with this key and certificate (PEM) instead of HTTP. */
  tls?: { key: string; cert: string };
  /** Compress good replies in this coding when the request accepts it, a stream event by event (reply-encoding.ts). */
  compression?: ContentCoding;
}

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>/v1` (`https:` with `tls`), to pass as the SDK's `baseURL` / `OPENAI_BASE_URL`. */
  readonly baseURL: string;
  /** `http://127.0.0.1:<port>` (`https:` with `tls`): the root without `/v1`, as `ANTHROPIC_BASE_URL` takes it. */
  readonly url: string;
  /** Every request received so far, in order of arrival. */
  readonly requests: readonly RecordedRequest[];
  /** Resolves with the requests once at least `count` have arrived; rejects after `timeoutMs` (default 10 s). */
  waitForRequests(count: number, timeoutMs?: number): Promise<readonly RecordedRequest[]>;
  /** Replaces the script; list steps restart from the first. */
  setScript(script: Script): void;
  /** Steps of a list script not yet used. */
  readonly remainingSteps: number;
  /** Closes the server, cutting any stalled response. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Starts a scripted server on 127.0.0.1 on a free port. */
export async function startScriptedServer(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const waiters: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const state: DialectState = { thinking: new ThinkingLedger(), reasoning: new Map() };
  let player = new ScriptPlayer(options.script);

  const connections = new WeakMap<object, number>();
  let connectionCount = 0;
  const connectionOf = (req: IncomingMessage) => {
    let connection = connections.get(req.socket);
    if (connection === undefined) {
      connection = connectionCount++;
      connections.set(req.socket, connection);
    }
    return connection;
  };

  const handle: RequestListener = (req, res) => {
    res.on("error", () => undefined);
    const connection = connectionOf(req);
    readBody(req)
      .then((rawBody) => {
        const request = recordRequest(req, connection, rawBody, requests, options, state);
        options.onRequest?.(request);
        waiters.splice(0).forEach((wake) => wake());
        if (request.violations.length > 0) {
          const refusal = functionSchemaRefusal(request);
          if (refusal !== undefined) sendStatus(res, refusal);
          else sendError(res, request.dialect, 400, request.violations.join("; "), "invalid_request_error");
          return;
        }
        const guard = checkAccess(req, request, options);
        if (guard !== undefined) {
          sendStatus(res, guard);
          return;
        }
        const refusal = options.contextLimit && request.body ? contextLimitRefusal(request.body, options.contextLimit, request.dialect) : undefined;
        if (refusal !== undefined) {
          request.refusedForLength = true;
          sendStatus(res, refusal);
          return;
        }
        const step = player.take(request);
        if (step === undefined) {
          sendError(res, request.dialect, 400, `scripted server: no script step left for request #${request.index + 1}`, "invalid_request_error");
          return;
        }
        playStep(step, request, req, res, options.compression, state);
      })
      .catch(() => req.socket.destroy());
  };
  const server = options.tls ? createTlsServer(options.tls, handle) : createServer(handle);
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const url = `${options.tls ? "https" : "http"}://127.0.0.1:${port}`;
  return {
    baseURL: `${url}/v1`,
    url,
    requests,
    get remainingSteps() {
      return player.remaining;
    },
    setScript(next) {
      player = new ScriptPlayer(next);
    },
    waitForRequests(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`waited ${timeoutMs} ms for ${count} requests, got ${requests.length}`)), timeoutMs);
        const check = () => {
          if (requests.length >= count) {
            clearTimeout(timer);
            resolve(requests);
          } else {
            waiters.push(check);
          }
        };
        check();
      });
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An OpenAI-style error response, e.g. `httpError(429, "Rate limit reached", { headers: { "retry-after-ms": "10" } })`. */
export function httpError(
  status: number,
  message: string,
  extra: { type?: string; code?: string | null; headers?: Record<string, string> } = {},
): StatusFault {
  return {
    fault: "status",
    status,
    body: { error: { message, type: extra.type ?? errorTypeFor(status), param: null, code: extra.code ?? null } },
    ...(extra.headers ? { headers: extra.headers } : {}),
  };
}

/** The 404 OpenAI sends for an unknown model. */
export function modelNotFound(model: string): StatusFault {
  return httpError(404, `The model \`${model}\` does not exist or you do not have access to it.`, { code: "model_not_found" });
}

function errorTypeFor(status: number): string {
  if (status === 401) return "invalid_authentication";
  if (status === 429) return "rate_limit_exceeded";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error("request body too large"));
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** What the server remembers across requests to check what comes back: issued thinking and reasoning. */
interface DialectState {
  thinking: ThinkingLedger;
  reasoning: IssuedReasoning;
}

function recordRequest(
  req: IncomingMessage,
  connection: number,
  rawBody: string,
  requests: RecordedRequest[],
  options: ScriptedServerOptions,
  state: DialectState,
): RecordedRequest {
  const path = req.url ?? "";
  let body: ChatRequestBody | undefined;
  const violations: string[] = [];
  const dialect = DIALECT_PATHS.find(([prefix]) => path === prefix || path.startsWith(`${prefix}?`))?.[1];
  if (req.method !== "POST" || dialect === undefined) {
    violations.push(`unknown endpoint ${req.method ?? ""} ${path}: only POST /v1/chat/completions, /v1/messages and /v1/responses are served`);
  } else {
    try {
      const parsed: unknown = JSON.parse(rawBody);
      if (isRecord(parsed)) body = parsed;
      else violations.push("the request body must be a JSON object");
    } catch {
      violations.push("the request body is not valid JSON");
    }
  }
  const flags: string[] = [];
  if (body !== undefined && dialect !== undefined) {
    (options.flagRuleViolationsOnly ? flags : violations).push(...dialectViolations(dialect, body, state));
    const toolsChange = toolsChangedWithinConversation(body, requests);
    if (toolsChange !== undefined) (options.rejectToolsChange ? violations : flags).push(toolsChange);
  }
  const request: RecordedRequest = { index: requests.length, dialect: dialect ?? "chat", method: req.method ?? "", path, headers: req.headers, connection, body, rawBody, violations, flags };
  requests.push(request);
  return request;
}

function dialectViolations(dialect: Dialect, body: ChatRequestBody, state: DialectState): string[] {
  switch (dialect) {
    case "chat":
      return findViolations(body);
    case "anthropic":
      return anthropicViolations(body, state.thinking);
    case "responses":
      return responsesViolations(body, state.reasoning);
  }
}

/** The history of a request: `messages`, or the Responses API's `input`. */
function historyOf(body: ChatRequestBody | undefined): unknown[] | undefined {
  const history = body?.messages ?? body?.input;
  return Array.isArray(history) ? history : undefined;
}

/**
 * A request continues an earlier one when the earlier messages are a prefix of its own; the tools list of
 * a conversation must then be identical (cache breakpoints aside), or provider prefix caches miss.
 */
function toolsChangedWithinConversation(body: ChatRequestBody, earlier: readonly RecordedRequest[]): string | undefined {
  const messages = historyOf(body);
  if (messages === undefined) return undefined;
  for (let i = earlier.length - 1; i >= 0; i -= 1) {
    const previousHistory = earlier[i]?.violations.length === 0 ? historyOf(earlier[i]?.body) : undefined;
    const previous = earlier[i]?.body;
    if (previous === undefined || previousHistory === undefined || previousHistory.length === 0) continue;
    if (previousHistory.length > messages.length) continue;
    const isPrefix = previousHistory.every((message, j) => sameWithoutCacheMarks(message, messages[j]));
    if (!isPrefix) continue;
    if (!sameWithoutCacheMarks(previous.tools, body.tools)) {
      return `the tools list differs from request #${i + 1} of the same conversation (breaks provider prefix caching)`;
    }
    return undefined;
  }
  return undefined;
}

function checkAccess(req: IncomingMessage, request: RecordedRequest, options: ScriptedServerOptions): StatusFault | undefined {
  if (options.apiKey !== undefined && request.dialect === "anthropic") {
    // The Anthropic SDK sends its key as `x-api-key` or (since 1.x) as a bearer token.
    const sent = req.headers["x-api-key"] ?? (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
    if (sent !== options.apiKey) return { fault: "status", status: 401, body: anthropicErrorBody(`invalid x-api-key: ${String(sent)}`, "authentication_error") };
  } else if (options.apiKey !== undefined) {
    const sent = (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
    if (sent !== options.apiKey) {
      return httpError(401, `Incorrect API key provided: ${sent}. You can find your API key at https://platform.openai.com/account/api-keys.`, { code: "invalid_api_key" });
    }
  }
  const model = request.body?.model;
  if (options.models !== undefined && typeof model === "string" && !options.models.includes(model)) return modelNotFound(model);
  return undefined;
}

function playStep(step: ScriptStep, request: RecordedRequest, req: IncomingMessage, res: ServerResponse, compression: ContentCoding | undefined, state: DialectState): void {
  const render = rendererFor(request, state);
  if (!("fault" in step)) {
    const send = () => sendReply(step, request, res, compression, render);
    if (step.delayMs) setTimeout(send, step.delayMs);
    else send();
    return;
  }
  if (step.fault === "status") {
    sendStatus(res, request.dialect === "anthropic" ? asAnthropicError(step) : step);
    return;
  }
  if (step.fault === "endless") {
    playEndless(step, request, res, render);
    return;
  }
  playBrokenResponse(step, request, req, res, render);
}

/** A scripted HTTP error in Anthropic's error shape (an OpenAI-shaped body is re-expressed; headers kept). */
function asAnthropicError(fault: StatusFault): StatusFault {
  const body = fault.body;
  if (!isRecord(body) || !isRecord(body.error) || body.type === "error") return fault;
  return { ...fault, body: anthropicErrorBody(String(body.error.message ?? ""), anthropicErrorType(fault.status)) };
}

function sendStatus(res: ServerResponse, fault: StatusFault): void {
  const isText = typeof fault.body === "string";
  const payload = fault.body === undefined ? "" : isText ? (fault.body as string) : JSON.stringify(fault.body);
  res.writeHead(fault.status, {
    "content-type": isText ? "text/plain" : "application/json",
    ...fault.headers,
  });
  res.end(payload);
}

/**
 * OpenAI's own answer to a function whose parameters hold an array without `items` (array-items.ts): that
 * one error, naming the tool's parameters as `param`, as the SDK's caller would see it.
 */
function functionSchemaRefusal(request: RecordedRequest): StatusFault | undefined {
  if (request.dialect === "anthropic") return undefined;
  const refusal = missingItemsRefusal(request.body?.tools, request.dialect);
  if (refusal === undefined || !request.violations.includes(refusal.message)) return undefined;
  return { fault: "status", status: 400, body: { error: { message: refusal.message, type: "invalid_request_error", param: refusal.param, code: "invalid_function_parameters" } } };
}

function sendError(res: ServerResponse, dialect: Dialect, status: number, message: string, type: string): void {
  const body = dialect === "anthropic" ? anthropicErrorBody(message, type) : { error: { message, type, param: null, code: null } };
  sendStatus(res, { fault: "status", status, body });
}

function wantsStream(request: RecordedRequest): boolean {
  return request.body?.stream === true;
}

function wantsUsage(request: RecordedRequest): boolean {
  const streamOptions = request.body?.stream_options;
  return isRecord(streamOptions) && streamOptions.include_usage === true;
}

/** How one dialect writes replies and the faults' bodies. */
interface Renderer {
  /** A streamed reply's SSE events, each complete. */
  events(step: ReplyStep): string[];
  /** A plain reply's JSON body. */
  body(step: ReplyStep): unknown;
  /** An error event in a 200 stream, as the provider sends one when generation fails. */
  errorEvent(): string;
  /** A 200 whose body is an error instead of a reply. */
  errorBody(): unknown;
  /** An event whose data is cut mid-JSON. */
  brokenEvent: string;
  /** A JSON body cut mid-way. */
  brokenBody: string;
  /** A well-formed stream / body that holds no reply. */
  emptyEvents(): string[];
  emptyBody(): unknown;
  /** The first event of a stream that never ends, and what it repeats (a content delta of `chars` characters). */
  endlessStart(): string;
  endlessDelta(chars: number): string;
  endlessBodyStart: string;
}

const SERVER_ERROR = "The server had an error while processing your request.";

function rendererFor(request: RecordedRequest, state: DialectState): Renderer {
  switch (request.dialect) {
    case "chat":
      return {
        events: (step) => replyEvents(step, request),
        body: (step) => completionBody(step, request),
        errorEvent: () => sse({ error: { message: SERVER_ERROR, type: "server_error", param: null, code: null } }),
        errorBody: () => ({ error: { message: SERVER_ERROR, type: "server_error", param: null, code: null } }),
        brokenEvent: `data: {"id":"chatcmpl-broken","choices":[{"index":0,"delta":{"content":"x"}\n\ndata: [DONE]\n\n`,
        brokenBody: '{"id":"chatcmpl-broken","choices":[{"index":0,"message":{"role":"assistant","content":"x"',
        emptyEvents: () => [sse({ ...chunkEnvelope(request), choices: [] }), sse("[DONE]")],
        emptyBody: () => ({ ...completionEnvelope(request), choices: [] }),
        endlessStart: () => replyEvents({ content: "" }, request)[0] ?? "",
        endlessDelta: (chars) => sse({ ...chunkEnvelope(request), choices: [{ index: 0, delta: { content: "x".repeat(chars) }, finish_reason: null }] }),
        endlessBodyStart: `{"id":"chatcmpl-endless","object":"chat.completion","choices":[`,
      };
    case "anthropic":
      return {
        events: (step) => anthropicEvents(step, request, state.thinking),
        body: (step) => anthropicMessageBody(step, request, state.thinking),
        errorEvent: () => anthropicEvent(anthropicErrorBody(SERVER_ERROR, "api_error")),
        errorBody: () => anthropicErrorBody(SERVER_ERROR, "api_error"),
        brokenEvent: `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}\n\n`,
        brokenBody: '{"id":"msg_broken","type":"message","role":"assistant","content":[{"type":"text","text":"x"',
        emptyEvents: () => [anthropicEvent({ type: "ping" })],
        emptyBody: () => ({ id: "msg_empty", type: "message", role: "assistant", model: String(request.body?.model ?? "") }),
        endlessStart: () => anthropicEvents({ content: "x" }, request, state.thinking).slice(0, 3).join(""),
        endlessDelta: (chars) => anthropicEvent({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x".repeat(chars) } }),
        endlessBodyStart: '{"id":"msg_endless","type":"message","role":"assistant","content":[',
      };
    case "responses": {
      const sequence = { n: 1000 };
      return {
        events: (step) => responsesEvents(step, request, state.reasoning),
        body: (step) => responsesBody(step, request, state.reasoning),
        errorEvent: () => responsesEvent({ type: "error", code: "server_error", message: SERVER_ERROR, param: null }, sequence),
        errorBody: () => ({ error: { message: SERVER_ERROR, type: "server_error", param: null, code: "server_error" } }),
        brokenEvent: `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"x"\n\n`,
        brokenBody: '{"id":"resp_broken","object":"response","status":"completed","output":[{"type":"message"',
        emptyEvents: () => [responsesEvent({ type: "response.completed", response: responseEnvelope(request, { status: "completed", output: [] }) }, sequence)],
        emptyBody: () => responseEnvelope(request, { status: "completed", output: [] }),
        endlessStart: () => responsesEvents({ content: "x" }, request, state.reasoning).slice(0, 5).join(""),
        endlessDelta: (chars) => responsesEvent({ type: "response.output_text.delta", item_id: "msg_endless", output_index: 0, content_index: 0, delta: "x".repeat(chars), logprobs: [] }, sequence),
        endlessBodyStart: '{"id":"resp_endless","object":"response","output":[',
      };
    }
  }
}

function sendReply(step: ReplyStep, request: RecordedRequest, res: ServerResponse, compression: ContentCoding | undefined, render: Renderer): void {
  const acceptEncoding = request.headers["accept-encoding"];
  if (wantsStream(request)) {
    const body = openReplyBody(res, { headers: SSE_HEADERS, stream: true }, compression, acceptEncoding);
    for (const event of render.events(step)) body.write(event);
    body.end();
    return;
  }
  openReplyBody(res, { headers: { "content-type": "application/json" }, stream: false }, compression, acceptEncoding).end(JSON.stringify(render.body(step)));
}

function playBrokenResponse(step: BrokenResponseFault, request: RecordedRequest, req: IncomingMessage, res: ServerResponse, render: Renderer): void {
  const reply = step.reply ?? { content: "a partial answer that must never be taken for the answer" };
  switch (step.fault) {
    case "reset":
      resetSocket(req.socket);
      return;
    case "cut":
    case "stall": {
      const partial = partialBody(reply, request, step.afterEvents ?? 2, render);
      if (wantsStream(request)) startSse(res);
      else res.writeHead(200, { "content-type": "application/json", "content-length": String(partial.fullLength) });
      res.write(partial.text);
      if (step.fault === "cut") setImmediate(() => resetSocket(req.socket));
      return;
    }
    case "malformed-sse":
      if (wantsStream(request)) {
        startSse(res);
        const [first] = render.events(reply);
        res.end(`${first ?? ""}${render.brokenEvent}`);
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(render.brokenBody);
      }
      return;
    case "not-json":
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body><h1>502 Bad Gateway</h1></body></html>");
      return;
    case "error-event": {
      if (wantsStream(request)) {
        startSse(res);
        res.end(render.events(reply).slice(0, step.afterEvents ?? 2).join("") + render.errorEvent());
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(render.errorBody()));
      }
      return;
    }
    case "no-choices":
      if (wantsStream(request)) {
        startSse(res);
        res.end(render.emptyEvents().join(""));
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(render.emptyBody()));
      }
      return;
  }
}

function playEndless(step: EndlessFault, request: RecordedRequest, res: ServerResponse, render: Renderer): void {
  let piece: string;
  if (wantsStream(request)) {
    startSse(res);
    res.write(render.endlessStart());
    piece = step.send === "delta" ? render.endlessDelta(Math.max(1, step.deltaChars ?? 1)) : ": keep-alive\n\n";
  } else {
    res.writeHead(200, { "content-type": "application/json" });
    res.write(render.endlessBodyStart);
    piece = " ".repeat(Math.max(1, step.send === "delta" ? (step.deltaChars ?? 1) : 1));
  }
  const timer = setInterval(() => res.write(piece), step.everyMs ?? 50);
  res.on("close", () => clearInterval(timer));
}

/** The first events of a stream (or the first half of a JSON body) for `cut` and `stall`. */
function partialBody(reply: ReplyStep, request: RecordedRequest, afterEvents: number, render: Renderer): { text: string; fullLength: number } {
  if (wantsStream(request)) {
    const events = render.events(reply);
    return { text: events.slice(0, afterEvents).join(""), fullLength: 0 };
  }
  const full = JSON.stringify(render.body(reply));
  return { text: full.slice(0, Math.floor(full.length / 2)), fullLength: Buffer.byteLength(full) };
}

function resetSocket(socket: Socket): void {
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" };

function startSse(res: ServerResponse): void {
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
}

function sse(data: unknown): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

let responseCounter = 0;

function completionEnvelope(request: RecordedRequest) {
  responseCounter += 1;
  return { id: `chatcmpl-scripted-${responseCounter}`, object: "chat.completion", created: 1_700_000_000, model: String(request.body?.model ?? "") };
}

function chunkEnvelope(request: RecordedRequest) {
  return { ...completionEnvelope(request), object: "chat.completion.chunk" };
}

function finishReasonOf(step: ReplyStep): string | null {
  if (step.finishReason !== undefined) return step.finishReason;
  return step.toolCalls && step.toolCalls.length > 0 ? "tool_calls" : "stop";
}

function usageOf(step: ReplyStep) {
  const usage = step.usage === undefined ? { prompt: 10, completion: 5 } : step.usage;
  if (usage === null) return undefined;
  return {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
    ...(usage.cached !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cached } } : {}),
  };
}

function argumentsText(call: ScriptedToolCall): string {
  if (call.argumentPieces) return call.argumentPieces.join("");
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

function completionBody(step: ReplyStep, request: RecordedRequest) {
  const toolCalls = step.toolCalls?.map((call) => ({
    ...(call.id !== undefined ? { id: call.id } : {}),
    type: "function",
    function: { name: call.name, arguments: call.argumentPieces ? argumentsText(call) : call.arguments },
  }));
  const usage = usageOf(step);
  return {
    ...completionEnvelope(request),
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: step.content === undefined ? (toolCalls ? null : "") : step.content,
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
          ...(step.extraMessageFields ?? { refusal: null, annotations: [] }),
        },
        finish_reason: finishReasonOf(step),
        logprobs: null,
      },
    ],
    ...(usage ? { usage } : {}),
  };
}


/** The SSE events of a streamed reply, each a complete `data: …\n\n` string. */
function replyEvents(step: ReplyStep, request: RecordedRequest): string[] {
  const shape = step.stream ?? {};
  const size = Math.max(1, shape.chunkSize ?? 8);
  const envelope = chunkEnvelope(request);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    sse({ ...envelope, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] });

  const events = [chunk({ role: "assistant", content: "", ...(step.extraMessageFields ?? { refusal: null }) })];
  for (const piece of pieces(step.content ?? "", size)) events.push(chunk({ content: piece }));
  step.toolCalls?.forEach((call, index) => {
    for (const delta of toolCallDeltas(call, index, shape, size)) events.push(chunk({ tool_calls: [delta] }));
  });

  const usage = wantsUsage(request) ? usageOf(step) : undefined;
  const usagePlacement = shape.usage ?? "separate";
  const finishReason = finishReasonOf(step);
  if (finishReason !== null) {
    const finish = JSON.parse(chunk({}, finishReason).slice("data: ".length)) as Record<string, unknown>;
    events.push(sse(usage && usagePlacement === "final" ? { ...finish, usage } : finish));
  }
  if (usage && usagePlacement === "separate") events.push(sse({ ...envelope, choices: [], usage }));
  if (shape.done ?? true) events.push(sse("[DONE]"));
  return events;
}

function toolCallDeltas(call: ScriptedToolCall, index: number, shape: StreamShape, size: number): Record<string, unknown>[] {
  const argumentParts: unknown[] =
    call.argumentPieces ?? (typeof call.arguments === "string" ? pieces(call.arguments, size) : [call.arguments]);
  const parts = argumentParts.length > 0 ? argumentParts : [""];
  // Late ids and names need a second delta to arrive on.
  if ((shape.lateId || shape.lateName) && parts.length < 2) parts.push("");
  return parts.map((part, i) => {
    const first = i === 0;
    const sendsId = call.id !== undefined && (shape.lateId ? i === 1 : first);
    const sendsName = shape.lateName ? i === 1 : first;
    return {
      ...(shape.omitIndex ? {} : { index }),
      ...(sendsId ? { id: call.id } : {}),
      ...(first ? { type: "function" } : {}),
      function: { ...(sendsName ? { name: call.name } : {}), arguments: part },
    };
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
