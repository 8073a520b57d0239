/**
 * `compileTurnsEagerly()`: from the call on, V8 gives each function it compiles Sparkplug's baseline
 * machine code at once (`--always-sparkplug`) instead of interpreting it until it has run often enough.
 * An agent's turn path (the SDK's request building and stream parsing, the loop, the executor) runs once
 * per turn, so interpreted it made a run's first few dozen turns the slowest. Called once the warm-up
 * is done: code that runs once (module bodies, start-up, the warm-up's imports) is served best by the
 * interpreter. Set at process start the flag made start-up ≈ 0.1 s slower; set before a first request
 * that has no warm-up before it (the installed bin), ≈ 35 ms, compiling that request's path. Optimization
 * is untouched: hot code, a computing tool's included, is still optimized as under V8's defaults.
 * Measured in docs/tool-execution.md.
 */
import { setFlagsFromString } from "node:v8";

export function compileTurnsEagerly(): void {
  setFlagsFromString("--always-sparkplug");
}
