/**
 * The shapes the scripted server shares with its rule checkers: the request body it reads and the HTTP
 * error it answers with. A module of their own, so the checkers need not import the server.
 */
/** The API a request speaks, from its path. */
export type Dialect = "chat" | "anthropic" | "responses";

/** The parts of a Chat Completions request body the server looks at. */
export interface ChatRequestBody {
  model?: unknown;
  messages?: unknown;
  /** Responses: the history. */
  input?: unknown;
  tools?: unknown;
  stream?: unknown;
  stream_options?: unknown;
  [key: string]: unknown;
}

/** An HTTP error response. `body` as an object is sent as JSON, as a string verbatim. */
export interface StatusFault {
  fault: "status";
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
