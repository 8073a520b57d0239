import type { CallingConvention } from "../../shared/schemas-file.js";

/**
 * The argument list for a validated arguments object, the way the function was declared: positional
 * parameters in order, with `undefined` for each one left out so the function's own defaults apply;
 * or the object itself for a function taking one (often destructured) object.
 */
export function bindArguments(call: CallingConvention, args: Record<string, unknown>): unknown[] {
  if (call.kind === "object") return [args];
  return call.params.map((name) => (Object.hasOwn(args, name) ? args[name] : undefined));
}
