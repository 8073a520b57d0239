/**
 * A cassette (cassette.ts) played back as a model server: the n-th request gets the n-th recorded
 * response, status, media type, recorded headers (`retry-after`…, so an SDK retries as it did) and body
 * exactly as recorded, once its method, endpoint and JSON body equal the recorded request's. The path is
 * compared from the dialect's endpoint on (`/api/v1/chat/completions` plays at `/v1/chat/completions`):
 * a prefix belongs to the base URL it was recorded through, which the replay's own URL stands for. A
 * recorded string holding `***` (a masked key) matches any string with one or more characters in place
 * of each `***`, the rest exactly. Any difference is a 400 whose message names the exchange and the first
 * difference (its JSON path, what was recorded, what came; for two long strings the place where they
 * part), also in `requests[n].violations`, so the agent under test fails with it (exit 3) and the test
 * can show it. `remainingSteps` counts the recorded exchanges no request has matched yet, and
 * `assertAllPlayed()` throws unless every one was played and every request matched: an agent that stops
 * early does not pass. Once a test calls `setScript`, that script answers instead, and both judge it: its
 * list steps not yet used, a request it had no step for.
 */
import { readCassette, type CassetteExchange } from "../runtime/model/cassette.js";
import { MASK } from "../runtime/model/key-mask.js";
import { httpError, startScriptedServer, type RecordedRequest, type ScriptedServer, type ScriptStep } from "../scripted-server/scripted-server.js";
import { ScriptPlayer } from "../scripted-server/script.js";

/** A running replay: a scripted model whose `remainingSteps` are the recorded exchanges not yet played (after `setScript`, its steps). */
export interface CassetteReplay extends ScriptedServer {
  /**
   * Throws, naming how many exchanges are left and the first one's request, or the first request that was
   * refused (and why); after `setScript`, how many of its steps are left or the request it had none for.
   */
  assertAllPlayed(): void;
}

export async function replayCassette(file: string): Promise<CassetteReplay> {
  const reading = readCassette(file);
  if (!reading.ok) throw new Error(reading.error);
  const exchanges = reading.exchanges;
  const played = new Set<number>();
  // The replay refuses with "request #n" in its own messages; the server's own refusals say only why.
  const refusedHere = new Set<RecordedRequest>();
  let replacement: ScriptPlayer | undefined;
  const server = await startScriptedServer({
    // A real session's requests were accepted by the real API; the cassette is the judge here.
    flagRuleViolationsOnly: true,
    script: (request, index) => {
      const step = replacement === undefined ? stepFor(exchanges, request, index) : scriptedStep(replacement, request, index);
      if (request.violations.length > 0) refusedHere.add(request);
      else if (replacement === undefined) played.add(index);
      return step;
    },
  });
  const remainingSteps = () => {
    return replacement === undefined ? exchanges.length - played.size : replacement.remaining;
  };
  const firstRefusal = () => {
    const request = server.requests.find((candidate) => candidate.violations.length > 0);
    if (request === undefined) return undefined;
    return refusedHere.has(request) ? request.violations[0] : `request #${request.index + 1} was refused: ${request.violations.join("; ")}`;
  };
  const assertAllPlayed = () => {
    const problem = replacement === undefined ? cassetteProblem(exchanges, played, firstRefusal()) : scriptProblem(replacement, firstRefusal());
    if (problem === undefined) return;
    const error = new Error(problem);
    // The stack starts at the test's call: this module's frames say nothing about what went wrong.
    Error.captureStackTrace(error, assertAllPlayed);
    throw error;
  };
  return {
    baseURL: server.baseURL,
    url: server.url,
    requests: server.requests,
    waitForRequests: (count, timeoutMs) => server.waitForRequests(count, timeoutMs),
    setScript(script) {
      replacement = new ScriptPlayer(script);
    },
    get remainingSteps() {
      return remainingSteps();
    },
    close: () => server.close(),
    assertAllPlayed,
  };
}

function cassetteProblem(exchanges: readonly CassetteExchange[], played: ReadonlySet<number>, refusal: string | undefined): string | undefined {
  const first = exchanges.findIndex((_, index) => !played.has(index));
  const left = first === -1 ? undefined : `${exchanges.length - played.size} of its ${exchanges.length} recorded exchanges were never played, the first #${first + 1} (${exchanges[first]!.request.method} ${exchanges[first]!.request.path})`;
  if (refusal !== undefined) return `cassette not played as recorded: ${refusal}${left !== undefined ? `; ${left}` : ""}`;
  if (left !== undefined) return `cassette not played to the end: ${left}; the agent made fewer requests than when the cassette was recorded`;
  return undefined;
}

function scriptProblem(replacement: ScriptPlayer, refusal: string | undefined): string | undefined {
  const { script, remaining } = replacement;
  const left = typeof script === "function" || remaining === 0 ? undefined : `${remaining} of the ${script.length} steps given to setScript were never used`;
  if (refusal !== undefined) return `replay not played as scripted: ${refusal}${left !== undefined ? `; ${left}` : ""}`;
  if (left !== undefined) return `replay not played to the end: ${left}`;
  return undefined;
}

/** The next step of the script a test set, played as the scripted server plays one; past a list's end, a refusal the assertion sees. */
function scriptedStep(replacement: ScriptPlayer, request: RecordedRequest, index: number): ScriptStep {
  return replacement.take(request) ?? refuse(request, `scripted server: no script step left for request #${index + 1}`);
}

function stepFor(exchanges: readonly CassetteExchange[], request: RecordedRequest, index: number): ScriptStep {
  const exchange = exchanges[index];
  if (exchange === undefined) return refuse(request, `cassette mismatch: request #${index + 1} has no recorded exchange: the cassette holds ${exchanges.length}`);
  const came = { method: request.method, path: request.path.split("?")[0] ?? "", body: request.body ?? (request.rawBody === "" ? null : request.rawBody) };
  const difference = requestDifference(exchange.request, came);
  if (difference !== undefined) return refuse(request, `cassette mismatch: request #${index + 1} differs from the recorded one at ${difference}`);
  const { status, body, contentType, headers } = exchange.response;
  // The retry headers as recorded: without them an SDK would wait and retry otherwise than it did.
  return { fault: "status", status, body, headers: { ...headers, "content-type": contentType || "application/octet-stream" } };
}

/** The first difference between the recorded request and the one that came: method, endpoint, then body. */
function requestDifference(recorded: CassetteExchange["request"], came: CassetteExchange["request"]): string | undefined {
  if (recorded.method !== came.method) return `request.method: recorded ${JSON.stringify(recorded.method)}, got ${JSON.stringify(came.method)}`;
  if (endpointOf(recorded.path) !== endpointOf(came.path)) return `request.path: recorded ${JSON.stringify(recorded.path)}, got ${JSON.stringify(came.path)}`;
  return firstDifference(recorded.body, came.body, "request.body");
}

/**
 * The endpoints the scripted server serves, as the SDKs append them to their base URL: OpenAI's base
 * usually ends in `/v1` (OpenRouter's `/api/v1`, a gateway's `/openai/v1`), Anthropic's does not.
 */
const ENDPOINTS: readonly string[] = ["/chat/completions", "/responses", "/v1/messages"];

/** `path` from its rightmost known endpoint on (`/proxy/v1/messages` → `/v1/messages`), or all of it; what came before is the base URL's. */
function endpointOf(path: string): string {
  let from = -1;
  for (const endpoint of ENDPOINTS) {
    for (let at = path.indexOf(endpoint); at !== -1; at = path.indexOf(endpoint, at + 1)) {
      // A whole segment only: `/responses-gateway` is no endpoint.
      const next = path[at + endpoint.length];
      if (next === undefined || next === "/") from = Math.max(from, at);
    }
  }
  return from === -1 ? path : path.slice(from);
}

function refuse(request: RecordedRequest, text: string): ScriptStep {
  request.violations.push(text);
  return httpError(400, text);
}

/** The JSON path of the first place where `actual` differs from `expected`, with both values, or `undefined`. */
export function firstDifference(expected: unknown, actual: unknown, path: string): string | undefined {
  // `===`, not `Object.is`: JSON's `-0` is the number 0 (an SDK may write either).
  if (expected === actual) return undefined;
  if (typeof expected === "string" && typeof actual === "string") return matchesMasked(expected, actual) ? undefined : `${path}: ${stringDifference(expected, actual)}`;
  const show = (value: unknown) => (value === undefined ? "nothing" : shorten(JSON.stringify(value)));
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i += 1) {
      const found = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (isRecord(expected) && isRecord(actual)) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const found = firstDifference(expected[key], actual[key], `${path}.${key}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  return `${path}: recorded ${show(expected)}, got ${show(actual)}`;
}

/** Longer JSON than this is cut in a message. */
const SHOWN = 120;
/** Characters shown either side of where two long strings part. */
const AROUND = 24;

function shorten(text: string): string {
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text;
}

/**
 * Two strings as a message shows them: whole when short; when long, where they part, since two first
 * 120 characters alike say nothing. The place is the first character that differs literally (a masked
 * `***` counts as itself there).
 */
function stringDifference(expected: string, actual: string): string {
  if (JSON.stringify(expected).length <= SHOWN && JSON.stringify(actual).length <= SHOWN) return `recorded ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  let at = 0;
  while (at < expected.length && expected[at] === actual[at]) at += 1;
  return `recorded ${excerpt(expected, at)}, got ${excerpt(actual, at)} (they differ from offset ${at})`;
}

/** `text` around offset `at`, quoted as JSON, with `…` where it was cut. */
function excerpt(text: string, at: number): string {
  const from = Math.max(0, at - AROUND);
  const to = Math.min(text.length, at + AROUND);
  return `"${from > 0 ? "…" : ""}${JSON.stringify(text.slice(from, to)).slice(1, -1)}${to < text.length ? "…" : ""}"`;
}

/**
 * Whether `actual` is `recorded` with each `***` (a masked key: the mask also hides an ordinary word
 * used as a key, wherever it occurs) standing for one or more characters, the rest exactly, anchored at
 * both ends. A recorded string without `***` must be equal.
 */
function matchesMasked(recorded: string, actual: string): boolean {
  const pieces = recorded.split(MASK);
  if (pieces.length === 1) return recorded === actual;
  const first = pieces[0] ?? "";
  const last = pieces[pieces.length - 1] ?? "";
  if (!actual.startsWith(first)) return false;
  // Each piece placed where it first fits leaves the most room for the next, so no other placement can match where this one fails.
  let at = first.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = actual.indexOf(piece, at + 1);
    if (found <= at) return false;
    at = found + piece.length;
  }
  return actual.length - last.length > at && actual.endsWith(last);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
