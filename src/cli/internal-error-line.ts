/**
 * The one stderr line a bin prints when sigloop itself fails (exit 70): the error's name and message, no
 * stack trace, the API key masked, and control characters escaped as progress shows them (the message
 * may quote what a model, a client or a file sent).
 */
import { keyMask } from "../runtime/model/key-mask.js";
import { maskURLCredentials } from "../runtime/model/url-credentials.js";
import { escapeControls } from "./terminal-safe.js";

export function internalErrorLine(error: unknown, secret: string, baseURL?: string): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `internal error (a bug in sigloop, please report it): ${escapeControls(maskURLCredentials(keyMask(secret), baseURL).scrub(text))}\n`;
}
