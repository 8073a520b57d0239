/**
 * The message of a `JSON.parse` failure, worded the same on every supported Node: V8 12 (Node 22) says
 * where as "… in JSON at position 8"; V8 13 (Node 24) adds " (line 1 column 9)". The position stays and
 * the addition goes, so a model, an MCP client or a user reads one wording whichever Node runs sigloop.
 */
export function jsonParseMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/ \(line \d+ column \d+\)$/, "");
}
