/**
 * The longest delay a Node.js timer holds: `setTimeout` fires at once (with a `TimeoutOverflowWarning`)
 * for anything above 2^31 − 1 ms, about 24.8 days. The CLI refuses longer durations; the library clamps
 * them to this, which is as good as no limit.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export function clampTimerMs(ms: number): number {
  return Math.min(Math.max(ms, 0), MAX_TIMER_MS);
}
