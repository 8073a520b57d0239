/**
 * V8's optimizing compiler, held back for a one-shot gen run and back to normal for watch mode.
 *
 * A cold gen runs about a second of mostly first-time code (the compiler parsing, binding and checking;
 * our schema work once per tool). By default TurboFan compiles every function that has run a little
 * while, on a background thread that on a 2-core machine competes with the run itself, and most of that
 * optimized code arrives too late to pay off. Raising V8's interrupt budget eightfold leaves the
 * optimizing compiler only the code that is really hot (the scanner and parser over 2 MB of Node's
 * typings, or thousands of tools). Measured at 500 tools, one process after another on a quiet machine
 * (docs/gen.md has the table): 0.74–0.83 s of wall time and 0.77–0.83 s of CPU instead of 1.14–1.15 s
 * and 1.47–1.51 s; with Node's typings 1.19–1.26 s of wall time instead of 1.54–1.75 s. Turning TurboFan
 * off altogether saved as much at 500 tools but starved the hot loops: 1.85–2.28 s with Node's typings,
 * 2.05–2.19 s at 2,000 tools against 1.51–1.72 s. Watch mode lives for hours, so once its first
 * generation is done V8's own budget is back for every regeneration.
 *
 * The entry points (`npm run gen`, `sigloop gen`) call `deferOptimizingCompiler` before they load the
 * generator: V8 keys its code cache by its flags, so the compiler's cache must be made and read with the
 * same choice. Code that calls `runGen` in-process (the tests) leaves the flags alone.
 */
import { setFlagsFromString } from "node:v8";

/** V8's interrupt budget in Node 20 (V8 11.3): the bytecode a function runs between tier-up checks. */
const V8_INTERRUPT_BUDGET = 67_584;

let deferred = false;

/** For a run that generates once and exits; call it before loading the generator. */
export function deferOptimizingCompiler(): void {
  setFlagsFromString(`--interrupt-budget=${8 * V8_INTERRUPT_BUDGET}`);
  deferred = true;
}

/** Gives V8 back its own budget, if it was raised, for a process that keeps running (watch mode). */
export function restoreOptimizingCompiler(): void {
  if (!deferred) return;
  setFlagsFromString(`--interrupt-budget=${V8_INTERRUPT_BUDGET}`);
  deferred = false;
}
