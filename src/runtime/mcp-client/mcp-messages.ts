/**
 * The texts the model reads about a call to an MCP server's tool that the executor's catalogue
 * (tool-messages.ts) does not already have: the server is not there, stopped, refused the call, or
 * answered with more than sigloop reads.
 */
import { shorten } from "../execution/describe-json.js";

const WHY_CHARS = 300;

export function serverUnavailableMessage(tool: string, server: string, why: string): string {
  return `The tool ${tool} is not available: its MCP server ${JSON.stringify(server)} is not running (${shorten(why, WHY_CHARS)}), so it was not run. Do without it or tell the user.`;
}

export function notOfferedMessage(tool: string, server: string, available: readonly string[]): string {
  return `The tool ${JSON.stringify(shorten(tool, 100))} is not available: the MCP server ${JSON.stringify(server)} does not offer it in this run. Available tools: ${available.length === 0 ? "none" : available.join(", ")}.`;
}

/** `restarts`: whether the next call starts the server again (one restart per server per run). */
export function serverStoppedMessage(tool: string, server: string, restarts: boolean): string {
  const next = restarts
    ? "the next call starts the server again."
    : "it has now stopped twice, so it stays out for the rest of the run. Do without its tools or tell the user.";
  return `The tool ${tool} has no result: its MCP server ${JSON.stringify(server)} stopped during the call. It may or may not have run; ${next}`;
}

export function serverRefusedMessage(tool: string, server: string, message: string): string {
  return `The MCP server ${JSON.stringify(server)} refused the call to ${tool}: ${shorten(message, 500)}`;
}

export function answerTooLargeMessage(tool: string, server: string, bytes: number, limit: number): string {
  return `The tool ${tool} has no result: its MCP server ${JSON.stringify(server)} answered with ${bytes} bytes, more than the ${limit} sigloop reads of one answer, so the answer was dropped. Ask it for less (a part, a page, a smaller file).`;
}

export function serverSchemaFailedMessage(tool: string, server: string, problem: string): string {
  return `The parameters schema of ${tool}, as the MCP server ${JSON.stringify(server)} lists it, could not be compiled (${shorten(problem, 500)}); the tool cannot be called until the server offers a valid one. The other tools still work.`;
}
