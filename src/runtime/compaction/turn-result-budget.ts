/**
 * One turn's tool results share one budget of characters, so that a model asking for thousands of calls at
 * once gets each result cut instead of a request no endpoint accepts (or a process out of memory). The
 * budget is the smaller of a fixed bound and half of a known context window (at the size estimate's 3
 * characters per token); each call gets an equal share, applied by the executor with its truncation note.
 */

/** The fixed bound: about 100,000 tokens of results per turn. */
export const DEFAULT_TURN_RESULT_CHARS = 400_000;

/** The share of a known window one turn's results may fill. */
const WINDOW_FRACTION = 0.5;
const CHARS_PER_TOKEN = 3;

export function turnResultBudget(fixedChars: number, contextWindow: number | undefined): number {
  if (contextWindow === undefined) return fixedChars;
  return Math.min(fixedChars, Math.floor(contextWindow * WINDOW_FRACTION * CHARS_PER_TOKEN));
}

/** Each call's share of the turn's budget. */
export function resultShare(turnBudget: number, calls: number): number {
  return Math.floor(turnBudget / Math.max(1, calls));
}
