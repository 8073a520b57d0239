import { AsyncLocalStorage } from "node:async_hooks";
import type { ToolCallContext, ToolContext } from "../loop/types.js";
import type { ShownChange } from "../workspace/shown-change.js";
import { SILENT_REPORTS } from "./tool-reports.js";

/**
 * One store per process, kept on `globalThis` under a registered symbol: a process can hold two copies of
 * this module (the runtime's ESM copy and a CommonJS tool's copy of the package, or a copy under another
 * loader), and a tool's `toolContext()` must see what the runtime's copy set. The count of calls in
 * progress is shared the same way.
 */
const STORE = Symbol.for("sigloop.toolCallContext");
const CALLS = Symbol.for("sigloop.toolCallsInProgress");

/**
 * One call's context, emptied when the call settles: work it left running then sees none. The tool's
 * name stays, so that a late error of that work can still say whose it was.
 */
interface CallCell {
  context: ToolContext | undefined;
  tool: string | undefined;
}

/** Where the executor notes the tool's name in the context it hands to the call. */
export const TOOL_NAME = Symbol.for("sigloop.toolName");

/**
 * Where the executor hands a file tool's call the change its approval showed (file-change.ts): one call's
 * context carries it to that call alone, never to a later call or another agent's.
 */
export const SHOWN_CHANGE = Symbol.for("sigloop.shownChange");

const shared = globalThis as { [STORE]?: AsyncLocalStorage<CallCell>; [CALLS]?: { count: number } };
const storage = (shared[STORE] ??= new AsyncLocalStorage<CallCell>());
const calls = (shared[CALLS] ??= { count: 0 });

/**
 * Runs `fn` with `context` visible to every `toolContext()` call it makes, however deep or async, until
 * what it returns settles. Where the store runs on async hooks (Node 22) a store in use makes every
 * promise of the process pay for a hook, the SDK's, undici's and `node:http`'s included, so the store is
 * switched off (`disable()`) the moment the last call in progress settles and switched on again by the
 * next call: the next model request, or the response of the call just made, is built with the hooks off
 * (docs/tool-execution.md, "The tool context between calls"). Work a tool leaves running after its
 * result (a timer it did not await) runs after its call ended: there, as outside any call,
 * `toolContext()` gives the defaults. Switching the store off is not enough for that on Node 24, whose
 * store lives in the async context frame that such work captured (and costs promises nothing), so the
 * store holds a cell per call that is emptied when the call settles. A call that never settles (a tool
 * that ignores its timeout) keeps its cell, so its late work still sees its own aborted signal.
 */
export function runWithToolContext<T>(context: ToolContext, fn: () => T): T {
  calls.count += 1;
  const name = (context as { [TOOL_NAME]?: unknown })[TOOL_NAME];
  const cell: CallCell = { context, tool: typeof name === "string" ? name : undefined };
  const ended = () => {
    cell.context = undefined;
    callEnded();
  };
  let result: T;
  try {
    result = storage.run(cell, fn);
  } catch (error) {
    ended();
    throw error;
  }
  // Any thenable (a query builder, another library's promise) is awaited like a promise.
  if (isThenable(result)) Promise.resolve(result).then(ended, ended);
  else ended();
  return result;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

function callEnded(): void {
  calls.count -= 1;
  if (calls.count === 0) storage.disable();
}

/** A store that names no tool: what `strayErrorOrigin` switches the store back on with. */
const WAKE: CallCell = { context: undefined, tool: undefined };

/**
 * The name of the tool whose call's asynchronous context this is, for a process-wide handler of a late
 * error (Node runs it in the context of the promise that was rejected or of the timer that threw). The
 * store may be off by then: a promise a tool rejected without awaiting is reported after the microtasks
 * that followed its call, the last call may have settled in them. Switched on again (`run` does that),
 * the store reads what that context held, on both lines: the async-hooks store keeps each context's value
 * on its resource, the frame store in the frame. It is switched off again at once. The stray-error tests
 * hold both lines to naming the tool.
 */
export function strayErrorOrigin(): string | undefined {
  if (calls.count > 0) return storage.getStore()?.tool;
  storage.run(WAKE, () => undefined);
  const tool = storage.getStore()?.tool;
  storage.disable();
  return tool;
}

/**
 * The change this call's approval showed, if any, taken from the call's context: a second take in the
 * same call finds none, so it is compared with the first write of the call only.
 */
export function takeShownChange(): ShownChange | undefined {
  const context = storage.getStore()?.context as { [SHOWN_CHANGE]?: ShownChange } | undefined;
  const shown = context?.[SHOWN_CHANGE];
  if (context !== undefined) delete context[SHOWN_CHANGE];
  return shown;
}

/**
 * The context of the tool call in progress: the workspace root, the call's abort signal, and `progress`
 * and `log` to report while it runs. Outside a call (a tool called directly from a script or a test)
 * the workspace is the current directory, the signal never aborts, and reports go nowhere.
 */
export function toolContext(): ToolCallContext {
  return (storage.getStore()?.context as ToolCallContext | undefined) ?? {
    workspace: process.cwd(),
    signal: new AbortController().signal,
    progress: SILENT_REPORTS.progress,
    log: SILENT_REPORTS.log,
  };
}
