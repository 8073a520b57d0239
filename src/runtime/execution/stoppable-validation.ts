/**
 * Validation that can be stopped: arguments whose schema has no small cost bound (`validation-cost.ts`)
 * are validated in a worker thread, so the main thread keeps answering `ping`, Ctrl-C and other calls,
 * and when the call's time limit passes (or its signal aborts) the worker is terminated, whatever Ajv was
 * doing, and replaced on the next need. The limit counts from when a worker has the arguments; waiting
 * for a worker (a few at most run, and one from the sources starts in a second or two) may take up to the
 * limit again, so a call ends within twice its limit at worst. Idle workers never keep the process alive.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { compiled, packageRoot } from "../../shared/package-layout.js";
import type { ParametersSchema } from "../../shared/schemas-file.js";
import type { SchemaDialect, ValidationResult } from "./validate-arguments.js";

export interface ValidationRequest {
  id: number;
  schemaId: number;
  /** Sent only to a worker that has not seen `schemaId` yet. */
  schema?: ParametersSchema;
  dialect: SchemaDialect;
  args: Record<string, unknown>;
}

type PlainError = { name: string; message: string };

export type ValidationReply = { id: number } & (
  | { kind: "checked"; result: ValidationResult; args: Record<string, unknown> }
  | { kind: "schema_failed" | "too_deep" | "failed"; error: PlainError }
);

/** What became of a stoppable validation. */
export type StoppableOutcome =
  | Omit<Extract<ValidationReply, { kind: "checked" }>, "id">
  | Omit<Extract<ValidationReply, { kind: "schema_failed" | "too_deep" | "failed" }>, "id">
  | { kind: "timeout" | "aborted" }
  | { kind: "crashed"; error: PlainError };

export interface StoppableLimits {
  timeoutMs: number;
  signal: AbortSignal;
}

/** Workers at most, whatever the number of calls in flight: each holds its own Ajv and compiled schemas. */
const MAX_WORKERS = 4;
/** A worker's heap: validation that builds errors without end fails instead of taking the process's memory. */
const WORKER_HEAP_MB = 512;

/** The worker's first message: its modules are loaded. */
export const READY = { ready: true } as const;

interface PooledWorker {
  worker: Worker;
  seen: Set<number>;
  /** Settles once the worker has loaded its modules and listens. */
  ready: Promise<void>;
}

interface Waiting {
  start: (pooled: PooledWorker) => void;
}

const idle: PooledWorker[] = [];
const waiting: Waiting[] = [];
let running = 0;
let nextId = 0;
let nextSchemaId = 0;
const schemaIds = new WeakMap<object, number>();

/** Validates (and repairs) `args` against `schema` in a worker, within `limits`. Never rejects. */
export function validateStoppably(schema: ParametersSchema, dialect: SchemaDialect, args: Record<string, unknown>, limits: StoppableLimits): Promise<StoppableOutcome> {
  if (limits.signal.aborted) return Promise.resolve({ kind: "aborted" });
  const schemaId = schemaIds.get(schema) ?? ++nextSchemaId;
  schemaIds.set(schema, schemaId);
  const id = ++nextId;
  return new Promise<StoppableOutcome>((resolve) => {
    let pooled: PooledWorker | undefined;
    let queued: Waiting | undefined;
    const settle = (outcome: StoppableOutcome, keepWorker: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      limits.signal.removeEventListener("abort", onAbort);
      if (queued !== undefined) waiting.splice(waiting.indexOf(queued), 1);
      if (pooled !== undefined) {
        pooled.worker.off("message", onMessage);
        pooled.worker.off("error", onError);
        pooled.worker.off("exit", onExit);
        release(pooled, keepWorker);
      }
      resolve(outcome);
    };
    const onMessage = (reply: ValidationReply | typeof READY): void => {
      if (!("id" in reply) || reply.id !== id) return;
      const { id: _, ...outcome } = reply;
      settle(outcome, true);
    };
    const onError = (error: Error): void => settle({ kind: "crashed", error: { name: error.name, message: error.message } }, false);
    const onExit = (code: number): void => settle({ kind: "crashed", error: { name: "Error", message: `the validation thread exited with code ${code}` } }, false);
    // A worker still starting, never given the arguments, is kept for the next call.
    const onAbort = (): void => settle({ kind: "aborted" }, !posted);
    const onTimeout = (): void => settle({ kind: "timeout" }, !posted);
    let timer = setTimeout(onTimeout, limits.timeoutMs);
    let settled = false;
    let posted = false;
    limits.signal.addEventListener("abort", onAbort, { once: true });
    const start = (worker: PooledWorker): void => {
      queued = undefined;
      pooled = worker;
      worker.worker.on("message", onMessage);
      worker.worker.on("error", onError);
      worker.worker.on("exit", onExit);
      void worker.ready.then(() => {
        if (settled) return;
        const request: ValidationRequest = { id, schemaId: schemaId, dialect, args, ...(worker.seen.has(schemaId) ? {} : { schema }) };
        worker.seen.add(schemaId);
        worker.worker.postMessage(request);
        posted = true;
        clearTimeout(timer);
        timer = setTimeout(onTimeout, limits.timeoutMs);
      });
    };
    const ready = acquire();
    if (ready !== undefined) start(ready);
    else {
      queued = { start };
      waiting.push(queued);
    }
  });
}

function acquire(): PooledWorker | undefined {
  const reused = idle.pop();
  if (reused !== undefined) {
    reused.worker.ref();
    return reused;
  }
  if (running >= MAX_WORKERS) return undefined;
  running++;
  return startWorker();
}

/** Back to the pool, or terminated (a worker stopped mid-validation is never reused); the next waiter starts. */
function release(pooled: PooledWorker, keep: boolean): void {
  if (keep) {
    pooled.worker.unref();
    idle.push(pooled);
  } else {
    running--;
    void pooled.worker.terminate();
  }
  const next = waiting.shift();
  if (next === undefined) return;
  const worker = acquire();
  if (worker !== undefined) next.start(worker);
  else waiting.unshift(next);
}

function startWorker(): PooledWorker {
  // From the sources (tests, `npm run agent`) the worker is TypeScript and needs the loader the package
  // depends on; the built package runs its compiled copy.
  const file = compiled
    ? path.join(packageRoot, "dist", "src", "runtime", "execution", "validation-worker.js")
    : path.join(packageRoot, "src", "runtime", "execution", "validation-worker.ts");
  const execArgv = compiled ? [] : ["--import", pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href];
  const worker = new Worker(file, { execArgv, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  const ready = new Promise<void>((resolve) => worker.once("message", () => resolve()));
  const pooled: PooledWorker = { worker, seen: new Set(), ready };
  // An idle worker has no request to fail; one that dies idle just leaves the pool.
  worker.on("error", () => undefined);
  worker.on("exit", () => {
    const index = idle.indexOf(pooled);
    if (index >= 0) {
      idle.splice(index, 1);
      running--;
    }
  });
  return pooled;
}
