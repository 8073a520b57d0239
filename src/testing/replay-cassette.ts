/**
 * A cassette (cassette.ts) played back as a model server: the n-th request gets the n-th recorded
 * response, status, media type and body exactly as recorded, once its method, path and JSON body equal
 * the recorded request's. Any difference is a 400 whose message names the exchange and the first
 * difference (its JSON path, what was recorded, what came), also in `requests[n].violations`, so the
 * agent under test fails with it (exit 3) and the test can show it. `remainingSteps` counts the recorded
 * exchanges no request has matched yet, and `assertAllPlayed()` throws unless every one was played and
 * every request matched: an agent that stops early does not pass.
 */
import { readCassette, type CassetteExchange } from "../runtime/model/cassette.js";
import { httpError, startScriptedServer, type RecordedRequest, type ScriptedServer, type ScriptStep } from "../scripted-server/scripted-server.js";

/** A running replay: a scripted model whose `remainingSteps` are the recorded exchanges not yet played. */
export interface CassetteReplay extends ScriptedServer {
  /** Throws, naming how many exchanges are left and the first one's request, or the first request that did not match. */
  assertAllPlayed(): void;
}

export async function replayCassette(file: string): Promise<CassetteReplay> {
  const reading = readCassette(file);
  if (!reading.ok) throw new Error(reading.error);
  const exchanges = reading.exchanges;
  const played = new Set<number>();
  const server = await startScriptedServer({
    // A real session's requests were accepted by the real API; the cassette is the judge here.
    flagRuleViolationsOnly: true,
    script: (request, index) => {
      const step = stepFor(exchanges, request, index);
      if (request.violations.length === 0) played.add(index);
      return step;
    },
  });
  // Once a test replaces the script, the cassette no longer answers: the count is the new script's.
  let replaced = false;
  return {
    baseURL: server.baseURL,
    url: server.url,
    requests: server.requests,
    waitForRequests: (count, timeoutMs) => server.waitForRequests(count, timeoutMs),
    setScript(script) {
      replaced = true;
      server.setScript(script);
    },
    get remainingSteps() {
      return replaced ? server.remainingSteps : exchanges.length - played.size;
    },
    close: () => server.close(),
    assertAllPlayed() {
      const mismatch = server.requests.find((request) => request.violations.length > 0)?.violations[0];
      const first = exchanges.findIndex((_, index) => !played.has(index));
      const left = first === -1 ? undefined : `${exchanges.length - played.size} of its ${exchanges.length} recorded exchanges were never played, the first #${first + 1} (${exchanges[first]!.request.method} ${exchanges[first]!.request.path})`;
      if (mismatch !== undefined) throw new Error(`cassette not played as recorded: ${mismatch}${left !== undefined ? `; ${left}` : ""}`);
      if (left !== undefined) throw new Error(`cassette not played to the end: ${left}; the agent made fewer requests than when the cassette was recorded`);
    },
  };
}

function stepFor(exchanges: readonly CassetteExchange[], request: RecordedRequest, index: number): ScriptStep {
  const exchange = exchanges[index];
  if (exchange === undefined) return mismatch(request, `request #${index + 1} has no recorded exchange: the cassette holds ${exchanges.length}`);
  const recorded = exchange.request;
  const came = { method: request.method, path: request.path.split("?")[0] ?? "", body: request.body ?? (request.rawBody === "" ? null : request.rawBody) };
  const difference = firstDifference(recorded, came, "request");
  if (difference !== undefined) return mismatch(request, `request #${index + 1} differs from the recorded one at ${difference}`);
  return { fault: "status", status: exchange.response.status, body: exchange.response.body, headers: { "content-type": exchange.response.contentType || "application/octet-stream" } };
}

function mismatch(request: RecordedRequest, message: string): ScriptStep {
  const text = `cassette mismatch: ${message}`;
  request.violations.push(text);
  return httpError(400, text);
}

/** The JSON path of the first place where `actual` differs from `expected`, with both values, or `undefined`. */
export function firstDifference(expected: unknown, actual: unknown, path: string): string | undefined {
  if (Object.is(expected, actual)) return undefined;
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

function shorten(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
