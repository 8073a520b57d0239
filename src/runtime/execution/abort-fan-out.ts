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
