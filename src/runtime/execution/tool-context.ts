import { AsyncLocalStorage } from "node:async_hooks";
import type { ToolContext } from "../loop/types.js";

/**
 * One store per process, kept on `globalThis` under a registered symbol: a process can hold two copies of
 * this module (the runtime's ESM copy and a CommonJS tool's copy of the package, or a copy under another
 * loader), and a tool's `toolContext()` must see what the runtime's copy set.
 */
const STORE = Symbol.for("sigloop.toolContext");
const shared = globalThis as { [STORE]?: AsyncLocalStorage<ToolContext> };
const storage = (shared[STORE] ??= new AsyncLocalStorage<ToolContext>());

/** Runs `fn` with `context` visible to every `toolContext()` call it makes, however deep or async. */
export function runWithToolContext<T>(context: ToolContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * The context of the tool call in progress: the workspace root and the call's abort signal. Outside a
 * call (a tool called directly from a script or a test) the workspace is the current directory and the
 * signal never aborts.
 */
export function toolContext(): ToolContext {
  return storage.getStore() ?? { workspace: process.cwd(), signal: new AbortController().signal };
}
