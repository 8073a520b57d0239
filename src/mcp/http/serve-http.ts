/**
 * The MCP server over Streamable HTTP: node:http for the connections, the SDK's
 * `StreamableHTTPServerTransport` for the protocol on `/mcp`, one protocol server per session (or per
 * request when stateless) over the one shared tool service, so a call runs exactly as over stdio.
 * Before a request reaches the transport this module answers, in order: `/healthz` (200 `ok`, nothing
 * else checked; 503 while shutting down), shutdown (503), the DNS-rebinding guard (403), the OAuth protected-resource metadata,
 * unknown paths (404), authentication (401), the method (405), `Accept` (406), `Content-Type` (415),
 * the body limit (413), a body not arrived within `BODY_TIMEOUT_MS` of the headers (408, then the
 * connection is closed), bad bodies (400), unknown sessions (404, with the request's id), the session
 * limit and a full call queue (503 with `Retry-After`), a request id still in flight in its session (409,
 * -32600; ids-in-flight.ts). A session is answered only to the credential that opened it: to any other
 * its id is unknown (404), so a leaked id lets no one else call, stream or end it. A request refused
 * before its body was read has the rest of that body discarded for at most `DRAIN_MS`, then the
 * connection is closed: a refused client cannot hold a connection by trickling a body. A request
 * target in absolute form (`POST http://HOST:PORT/mcp`, as proxies send) is served as its path, its
 * authority judged as `Host` is (rebinding-guard.ts). Ids are answered as the client wrote them
 * (id-literals.ts). Every request leaves one log line when its response ends (its outcome `error` for
 * any status from 400; its status `aborted` when the client left before any answer). Node's own bounds
 * are tightened to this server's: headers within `HEADERS_TIMEOUT_MS` (else Node's bare 408, then the
 * connection is closed), and a whole request within `REQUEST_TIMEOUT_MS`, above the headers' and the
 * body's bounds so that the body's own 408 always comes first.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as NodeHttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerHandle } from "../create-mcp-server.js";
import { isIdLiteral, type WireId } from "../id-literals.js";
import { idInUse, IdsInFlight } from "../ids-in-flight.js";
import { writeIdLiteralsTo } from "./id-literal-response.js";
import { requestTarget } from "./request-target.js";
import { answerError, answerJson, answerText } from "./http-answers.js";
import { HttpSessions, touch, type HttpSession } from "./http-sessions.js";
import type { Authenticate } from "./authenticate.js";
import { parseBodyMessage } from "./json-rpc-body.js";
import { hostWithPort, type ListenAddress } from "./listen-address.js";
import { BODY_TIMEOUT_MS, drainAfterRefusal, dropUnreadBody, readBody } from "./read-body.js";
import { rebindingGuard } from "./rebinding-guard.js";
import { describeMessage, requestLogLine, responseOutcome, type RequestRecord } from "./request-log.js";

export interface ServeHttpOptions {
  handle: McpServerHandle;
  listen: ListenAddress;
  allowOrigins: readonly string[];
  stateless: boolean;
  maxSessions: number;
  sessionIdleMs: number;
  maxBodyBytes: number;
  /** Undefined: no authentication (a loopback address only; the caller checks). */
  authenticate?: Authenticate;
  /** With JWTs: the authorization server and audience the protected-resource metadata names. */
  oauth?: { issuer: string; audience: string };
  log: (line: string) => void;
  /** Where each request's own line goes, written when its response has ended. */
  logRequest: (line: string) => void;
}

export interface HttpService {
  /** `http://HOST:PORT/mcp`, the address actually bound. */
  url: string;
  /** Closes the listener, lets calls in flight finish for `graceMs`, aborts the rest, ends every session. */
  stop(graceMs: number): Promise<void>;
}

const MCP_PATH = "/mcp";
const METADATA_PATH = "/.well-known/oauth-protected-resource";
const BUSY = { "retry-after": "1" };
/** Who asks when the server has no tokens: everyone is the same client. */
const ANONYMOUS = "anonymous";
/** How long the unread body of a refused request may go on arriving. */
const DRAIN_MS = 5000;
/** How long a request's headers may take to arrive whole: Node's default, 60 s, lets a client hold a connection that long for nothing. */
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * Node's bound on a whole request, from its first byte until its body has arrived (not its answer: a long
 * call or stream is not cut). Above headers, body and a drain, so it only ends requests whose body this
 * server never reads, such as a GET stream sent with a body that does not finish.
 */
export const REQUEST_TIMEOUT_MS = HEADERS_TIMEOUT_MS + BODY_TIMEOUT_MS + DRAIN_MS;
/** How often Node checks those bounds: its default, 30 s, would let the headers' 10 s run to 40 s. */
const TIMEOUT_CHECK_MS = 1_000;

export async function serveHttp(options: ServeHttpOptions): Promise<{ ok: true; service: HttpService } | { ok: false; error: string }> {
  const { handle, log, logRequest } = options;
  const sessions = new HttpSessions(options.maxSessions, options.sessionIdleMs);
  /** POST responses not yet ended: shutdown waits for their answers to leave. */
  const answering = new Set<ServerResponse>();
  let stopping = false;
  let guard: ReturnType<typeof rebindingGuard> = () => undefined;

  const httpServer = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_MS }, (req, res) => {
    handleRequest(req, res).catch((error: unknown) => {
      log(`http: a request failed inside the server (${error instanceof Error ? error.message : String(error)})`);
      if (!res.headersSent) answerError(res, 500, -32603, "Internal error: the server failed while answering; the request may be retried.");
      else res.destroy();
    });
  });

  async function handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const record: RequestRecord = { httpMethod: req.method ?? "" };
    // Node would read and drop the unread rest for as long as the client sends it (up to REQUEST_TIMEOUT_MS).
    res.once("finish", () => {
      if (!req.complete) dropUnreadBody(req, DRAIN_MS);
    });
    res.once("close", () => {
      const ms = performance.now() - started;
      // Nothing was answered (the client went away first, as in the middle of its body): no status to log.
      if (!res.headersSent) return logRequest(requestLogLine(record, "aborted", ms));
      // Every error status is an error outcome: refusals before the body is read (401, 406, …) included.
      if (record.outcome === undefined && res.statusCode >= 400) record.outcome = "error";
      logRequest(requestLogLine(record, res.statusCode, ms));
    });
    const target = requestTarget(req.url ?? "/");
    const pathname = target.path;
    // The SDK's transport is given the origin form, whatever form the request line used.
    req.url = target.originForm;
    if (pathname === "/healthz") {
      // While shutting down it says so, and a load balancer stops sending requests here.
      if (stopping) answerText(res, 503, "stopping", { connection: "close" });
      else if (req.method === "GET" || req.method === "HEAD") answerText(res, 200, "ok");
      else answerText(res, 405, "GET /healthz", { allow: "GET, HEAD" });
      return;
    }
    if (stopping) return answerError(res, 503, -32000, "the server is shutting down; connect again (another replica, or this one once it is back)", { ...BUSY, connection: "close" });
    const refused = guard(req.headers.origin, req.headers.host, target.authority);
    if (refused !== undefined) return answerError(res, 403, -32000, `Forbidden: ${refused}.`);
    if (options.oauth !== undefined && (pathname === METADATA_PATH || pathname === `${METADATA_PATH}${MCP_PATH}`)) {
      // RFC 9728 metadata is read with GET; anything else is the wrong method, not a second way to read it.
      if (req.method !== "GET" && req.method !== "HEAD") return answerText(res, 405, `GET ${pathname}`, { allow: "GET, HEAD" });
      return answerJson(res, 200, { resource: resourceUrl(req), authorization_servers: [options.oauth.issuer], bearer_methods_supported: ["header"], resource_name: "sigloop" });
    }
    if (pathname !== MCP_PATH) return answerError(res, 404, -32000, `Not Found: MCP is served on ${MCP_PATH}.`);
    const asking = options.authenticate !== undefined ? await options.authenticate(req.headers.authorization) : { ok: true as const, principal: ANONYMOUS };
    if (!asking.ok) return unauthorized(req, res, asking.reason);
    const { principal } = asking;
    if (req.method === "POST") return post(req, res, record, principal, started);
    if (req.method === "GET" || req.method === "DELETE") {
      if (options.stateless) return answerError(res, 405, -32000, `Method Not Allowed: a stateless server has no ${req.method === "GET" ? "stream to open" : "session to end"}; POST each message.`, { allow: "POST" });
      const session = findSession(req, res, principal);
      if (session === undefined) return;
      return inSession(session, req, res, record);
    }
    answerError(res, 405, -32000, `Method Not Allowed: ${MCP_PATH} takes ${options.stateless ? "POST" : "POST, GET and DELETE"}.`, { allow: options.stateless ? "POST" : "GET, POST, DELETE" });
  }

  /** RFC 6750's challenge; a `reason` (plain ASCII without quotes or backslashes) as its `invalid_token` description. */
  function unauthorized(req: IncomingMessage, res: ServerResponse, reason: string | undefined): void {
    const error = reason !== undefined ? `, error="invalid_token", error_description="${reason}"` : "";
    const metadata = options.oauth !== undefined ? `, resource_metadata="${baseUrl(req)}${METADATA_PATH}"` : "";
    answerError(res, 401, -32000, "Unauthorized: send Authorization: Bearer <token> with a token this server accepts.", { "www-authenticate": `Bearer realm="sigloop"${error}${metadata}` });
  }

  /** `started`: when the request's headers were read, from which its body has `BODY_TIMEOUT_MS` to arrive. */
  async function post(req: IncomingMessage, res: ServerResponse, record: RequestRecord, principal: string, started: number): Promise<void> {
    const accept = req.headers.accept ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return answerError(res, 406, -32000, "Not Acceptable: the Accept header must list both application/json and text/event-stream.");
    }
    if ((req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() !== "application/json") {
      return answerError(res, 415, -32000, "Unsupported Media Type: send the message with Content-Type: application/json.");
    }
    const body = await readBody(req, options.maxBodyBytes, BODY_TIMEOUT_MS - (performance.now() - started));
    if (!body.ok) {
      if (body.problem === "aborted") return void req.socket.destroy();
      if (body.problem === "too slow") return bodyTooSlow(res);
      answerError(res, 413, -32000, `Payload Too Large: a message may have at most ${options.maxBodyBytes} bytes (--max-body-bytes).`, { connection: "close" });
      return drainAfterRefusal(req, res);
    }
    const parsed = parseBodyMessage(body.body);
    if (!parsed.ok) return answerError(res, 400, parsed.code, parsed.error, {}, parsed.id);
    const { message } = parsed;
    describeMessage(record, message);
    const id = "id" in message && "method" in message ? message.id : undefined;
    if (stopping) return answerError(res, 503, -32000, "the server is shutting down; send the message again elsewhere or later", { ...BUSY, connection: "close" }, id ?? null);
    if (record.rpcMethod === "tools/call" && handle.queue.full) {
      return answerError(res, 503, -32000, `Service Unavailable: ${handle.queue.maxConcurrent} calls are running and ${handle.queue.maxQueued} waiting (--max-concurrent-calls); try again shortly.`, BUSY, id ?? null);
    }
    answering.add(res);
    res.once("close", () => answering.delete(res));
    if (isIdLiteral(id)) writeIdLiteralsTo(res);
    if (options.stateless) return statelessRequest(req, res, record, message, principal);
    if (req.headers["mcp-session-id"] !== undefined) {
      const session = findSession(req, res, principal, id ?? null);
      if (session === undefined) return;
      return inSession(session, req, res, record, message);
    }
    if (!isInitializeRequest(message)) return answerError(res, 400, -32000, "Bad Request: send initialize first, then the Mcp-Session-Id header it answers with on every request.", {}, id ?? null);
    return newSession(req, res, record, message, principal);
  }

  /** The client is trickling its body: it is told so; with `Connection: close`, node:http closes the socket once the answer is written. */
  function bodyTooSlow(res: ServerResponse): void {
    answerError(res, 408, -32000, `Request Timeout: the body did not arrive within ${BODY_TIMEOUT_MS / 1000} s of the request's headers; send the whole message at once.`, { connection: "close" });
  }

  /** `requestId`: the id of the request the POST carries, for the error answer. Another's session is answered as unknown. */
  function findSession(req: IncomingMessage, res: ServerResponse, principal: string, requestId: WireId | null = null): HttpSession | undefined {
    const id = req.headers["mcp-session-id"];
    if (typeof id !== "string" || id === "") {
      answerError(res, 400, -32000, "Bad Request: the Mcp-Session-Id header is required; send initialize first to get one.", {}, requestId);
      return undefined;
    }
    const found = sessions.get(id);
    const session = found?.owner === principal ? found : undefined;
    if (session === undefined) answerError(res, 404, -32001, "Session not found: it ended or never existed; send initialize again for a new session.", {}, requestId);
    return session;
  }

  async function newSession(req: IncomingMessage, res: ServerResponse, record: RequestRecord, message: JSONRPCMessage, owner: string): Promise<void> {
    const release = sessions.reserve();
    if (release === undefined) {
      return answerError(res, 503, -32000, `Service Unavailable: ${options.maxSessions} sessions are open (--max-sessions); try again once one ends.`, BUSY, "id" in message ? message.id : null);
    }
    const session: HttpSession = {
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          // From reserved to open, never counted twice.
          release();
          sessions.add(id, session);
        },
      }),
      owner,
      busy: 0,
      lastActive: Date.now(),
      awaiting: new Map(),
      ids: new IdsInFlight(),
    };
    observeOutcomes(session);
    const server = handle.newServer({
      listChanged: true,
      onCallActivity: (delta) => touch(session, delta),
      onClose: () => {
        if (session.transport.sessionId !== undefined) sessions.delete(session.transport.sessionId);
      },
    });
    await server.connect(session.transport);
    try {
      await inSession(session, req, res, record, message);
    } finally {
      release();
      if (session.transport.sessionId === undefined) await server.close();
    }
  }

  async function inSession(session: HttpSession, req: IncomingMessage, res: ServerResponse, record: RequestRecord, message?: JSONRPCMessage): Promise<void> {
    const inUse = message !== undefined ? session.ids.arrived(message) : undefined;
    if (inUse !== undefined) return answerError(res, 409, -32600, idInUse(inUse), {}, inUse);
    touch(session, 1);
    const id = message !== undefined && "id" in message && "method" in message ? message.id : undefined;
    if (id !== undefined) session.awaiting.set(id, record);
    res.once("close", () => {
      touch(session, -1);
      if (id !== undefined && session.awaiting.get(id) === record) session.awaiting.delete(id);
      // Refused by the SDK's transport before it reached the protocol server: no answer will free the id.
      if (id !== undefined && res.statusCode !== 200) session.ids.release(id);
    });
    await session.transport.handleRequest(req, res, message);
  }

  async function statelessRequest(req: IncomingMessage, res: ServerResponse, record: RequestRecord, message: JSONRPCMessage, owner: string): Promise<void> {
    // One message per POST: no other request shares its ids, so none is refused as in use.
    const session: HttpSession = { transport: new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }), owner, busy: 0, lastActive: Date.now(), awaiting: new Map(), ids: new IdsInFlight() };
    observeOutcomes(session);
    const server = handle.newServer({ listChanged: false, stateless: true });
    await server.connect(session.transport);
    // The client has gone or has its answer: a call still running for it is aborted.
    res.once("close", () => void server.close());
    if ("id" in message && "method" in message) session.awaiting.set(message.id, record);
    await session.transport.handleRequest(req, res, message);
  }

  /** Notes the outcome of each response on the log record of the request it answers. */
  function observeOutcomes(session: HttpSession): void {
    const send = session.transport.send.bind(session.transport);
    session.transport.send = (message, sendOptions) => {
      session.ids.sent(message);
      const outcome = responseOutcome(message);
      if (outcome !== undefined && "id" in message && message.id !== undefined) {
        const record = session.awaiting.get(message.id);
        if (record !== undefined) record.outcome = outcome;
      }
      return send(message, sendOptions);
    };
  }

  function baseUrl(req: IncomingMessage): string {
    const host = req.headers.host;
    const safeHost = host !== undefined && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? host : hostWithPort(bound.address, bound.port);
    const proto = String(req.headers["x-forwarded-proto"] ?? "").split(",")[0]?.trim() === "https" ? "https" : "http";
    return `${proto}://${safeHost}`;
  }

  /** The audience when it is a URL (tokens are minted for it), else this endpoint's own URL. */
  function resourceUrl(req: IncomingMessage): string {
    const audience = options.oauth?.audience ?? "";
    return /^https?:\/\//i.test(audience) ? audience : `${baseUrl(req)}${MCP_PATH}`;
  }

  const listening = await new Promise<{ ok: true } | { ok: false; error: string }>((resolve) => {
    httpServer.once("error", (error: NodeJS.ErrnoException) => resolve({ ok: false, error: listenProblem(options.listen, error) }));
    httpServer.listen(options.listen.port, options.listen.host, () => resolve({ ok: true }));
  });
  if (!listening.ok) return listening;
  const bound = httpServer.address() as AddressInfo;
  guard = rebindingGuard({ host: options.listen.host, boundAddress: bound.address, port: bound.port, allowOrigins: options.allowOrigins });
  const sweeper = setInterval(() => {
    for (const session of sessions.idle(Date.now())) void session.transport.close();
  }, Math.max(25, Math.min(options.sessionIdleMs / 4, 30_000)));
  sweeper.unref();

  const service: HttpService = {
    url: `http://${hostWithPort(bound.address, bound.port)}${MCP_PATH}`,
    async stop(graceMs) {
      stopping = true;
      clearInterval(sweeper);
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      const finished = await Promise.race([handle.callsSettled().then(() => true), delay(graceMs).then(() => false)]);
      if (!finished) await handle.abortCalls();
      // The answers (the interrupted ones among them) still have to leave over their streams.
      await Promise.race([until(() => answering.size === 0), delay(2000)]);
      await Promise.all(sessions.all().map((session) => session.transport.close()));
      httpServer.closeAllConnections();
      await closed;
    },
  };
  return { ok: true, service };
}

function listenProblem(listen: ListenAddress, error: NodeJS.ErrnoException): string {
  const where = hostWithPort(listen.host, listen.port);
  if (error.code === "EADDRINUSE") return `cannot listen on ${where}: the port is in use; pick another, or 0 for a free one (--http)`;
  if (error.code === "EACCES") return `cannot listen on ${where}: not allowed (ports below 1024 need privileges); pick a port above 1024 (--http)`;
  if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND" || error.code === "EAI_AGAIN") return `cannot listen on ${where}: no such address on this machine (--http)`;
  return `cannot listen on ${where}: ${error.message} (--http)`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await delay(10);
}
