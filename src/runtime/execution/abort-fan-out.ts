/**
 * One abort listener per signal, however many callers watch it. A turn's tool calls all watch the run's
 * signal at once; a listener each would make Node print `MaxListenersExceededWarning` from the eleventh
 * call on. Here the first watcher of a signal adds the one listener, the last to leave removes it, so the
 * signal is left as it was found.
 */

interface SignalWatch {
  handlers: Set<() => void>;
  fire: () => void;
}

const watches = new WeakMap<AbortSignal, SignalWatch>();

/** Calls `handler` once when `signal` aborts; the returned function stops watching. */
export function onAbort(signal: AbortSignal, handler: () => void): () => void {
  let watch = watches.get(signal);
  if (watch === undefined) {
    const handlers = new Set<() => void>();
    const fire = () => {
      watches.delete(signal);
      for (const each of handlers) each();
    };
    watch = { handlers, fire };
    watches.set(signal, watch);
    signal.addEventListener("abort", fire, { once: true });
  }
  // A wrapper of its own, so that the same handler registered twice is also removed twice.
  const entry = () => handler();
  const current = watch;
  current.handlers.add(entry);
  return () => {
    if (!current.handlers.delete(entry) || current.handlers.size > 0) return;
    if (watches.get(signal) !== current) return;
    watches.delete(signal);
    signal.removeEventListener("abort", current.fire);
  };
}

/**
 * A signal that aborts, with the same reason, as soon as any of `signals` does; `release` stops
 * following them. `AbortSignal.any` does the same, but a signal it makes stays registered on each source
 * until garbage collection finalizes it (nodejs/node#55351): made per call against the server's
 * long-lived shutdown signal, that is memory and collector time for every call. Released here when the
 * call ends, nothing is left on the sources.
 */
export function abortWhenAny(signals: readonly AbortSignal[]): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const aborted = signals.find((signal) => signal.aborted);
  if (aborted !== undefined) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const stops = signals.map((signal) => onAbort(signal, () => controller.abort(signal.reason)));
  return { signal: controller.signal, release: () => stops.forEach((stop) => stop()) };
}
