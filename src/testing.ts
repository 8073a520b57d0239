/**
 * `sigloop/testing`: test your own tools and agents against a misbehaving model, in your own test runner,
 * offline. `startScriptedModel` starts the scripted model server (real HTTP on 127.0.0.1) that speaks
 * OpenAI Chat Completions (`POST /v1/chat/completions`), Anthropic Messages (`/v1/messages`) and OpenAI
 * Responses (`/v1/responses`), as strict about the history it receives as the real APIs, and plays a
 * script of replies and faults; `replayCassette` plays back a session recorded with `--record FILE`.
 * Both resolve to a `ScriptedModel`: point OPENAI_BASE_URL at `${url}/v1` (also `baseURL`) or
 * ANTHROPIC_BASE_URL at `url`, read `requests`, and `close()` it. docs/testing.md has the details.
 */
import { startScriptedServer, type ScriptedServer, type ScriptedServerOptions } from "./scripted-server/scripted-server.js";

export { replayCassette, type CassetteReplay } from "./testing/replay-cassette.js";
export { httpError, modelNotFound } from "./scripted-server/scripted-server.js";
export type {
  BrokenResponseFault,
  Dialect,
  EndlessFault,
  FaultStep,
  RecordedRequest,
  ReplyStep,
  Script,
  ScriptedToolCall,
  ScriptStep,
  StatusFault,
  StreamShape,
} from "./scripted-server/scripted-server.js";
export type { CassetteExchange } from "./runtime/model/cassette.js";

/** What `startScriptedModel` takes: the script, and optionally a key, models, a context window, TLS. */
export type ScriptedModelOptions = ScriptedServerOptions;

/**
 * A running scripted model: `url` is its root (`http://127.0.0.1:<port>`, what ANTHROPIC_BASE_URL takes),
 * `baseURL` the same with `/v1` (what OPENAI_BASE_URL takes), `requests` every request it received
 * (parsed body, headers, and the `violations` it answered 400 for), `close()` stops it.
 */
export type ScriptedModel = ScriptedServer;

/**
 * Starts a scripted model on a free port of 127.0.0.1.
 *
 * @example
 * const model = await startScriptedModel({ script: [{ toolCalls: [{ name: "search_notes", arguments: { query: "launch" } }] }, { content: "Two notes." }] });
 * // run the agent with OPENAI_BASE_URL=`${model.url}/v1` (or ANTHROPIC_BASE_URL=model.url), then:
 * model.requests[1]?.body; // the history the model received
 * await model.close();
 */
export function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  return startScriptedServer(options);
}
