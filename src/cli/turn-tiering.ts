/**
 * `compileTurnsEagerly()`: from the call on, V8 gives each function it compiles Sparkplug's baseline
 * machine code at once (`--always-sparkplug`) instead of interpreting it until it has run often enough.
 * An agent's turn path (the SDK's request building and stream parsing, the loop, the executor) runs once
 * per turn, so interpreted it made a run's first few dozen turns the slowest. Called once the CLI's
 * modules are loaded: their top-level code runs once, and the interpreter serves it best. Optimization is
 * untouched: hot code, a computing tool's included, is still optimized as under V8's defaults. Measured in
 * docs/tool-execution.md.
 */
import { setFlagsFromString } from "node:v8";

export function compileTurnsEagerly(): void {
  setFlagsFromString("--always-sparkplug");
}
