/**
 * Text from the model, a tool or an endpoint made safe for a terminal: every character that can drive it
 * (ESC and so every escape sequence, BEL, NUL, the other C0 and C1 controls, DEL, a carriage return that
 * would overwrite the line) or reorder what it shows (bidirectional overrides) is written as a visible
 * escape such as `\x1b` or `\u202e`. Newlines, tabs and CR LF pairs keep the layout; nothing else changes.
 */

const UNSAFE = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
