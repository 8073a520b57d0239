/**
 * V8's optimizing compiler, off for a one-shot gen run and back on for watch mode.
 *
 * A cold gen runs about a second of mostly first-time code (the compiler parsing, binding and checking;
 * our schema work once per tool). TurboFan spends that second compiling hot functions on a background
 * thread, which on a 2-core machine competes with the run itself, and the optimized code arrives too late
 * to repay it. Measured at 500 tools, alternating runs at load average 4: 1.0 s of CPU and 1.16 s of
 * wall time with it off, 1.5 s and 1.74 s with it on. Watch mode lives for hours, so once its first
 * generation is done the optimizing compiler is back for every regeneration.
 *
 * The entry points (`npm run gen`, `sigloop gen`) call `skipOptimizingCompiler` before they load the
 * generator: V8 keys its code cache by its flags, so the compiler's cache must be made and read with the
 * same choice. Code that calls `runGen` in-process (the tests) leaves the flags alone.
 */
import { setFlagsFromString } from "node:v8";

let lowered = false;

/** For a run that generates once and exits; call it before loading the generator. */
export function skipOptimizingCompiler(): void {
  setFlagsFromString("--no-opt");
  lowered = true;
}

/** Turns the optimizing compiler back on, if it was off, for a process that keeps running (watch mode). */
export function restoreOptimizingCompiler(): void {
  if (!lowered) return;
  setFlagsFromString("--opt");
  lowered = false;
}
