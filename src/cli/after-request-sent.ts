/**
 * `onceRequestSent(callback)`: runs `callback` once, right after the body of the next request made with
 * Node's `fetch` has been written to its socket (undici's `undici:request:bodySent` diagnostics channel).
 * For work that the model's latency should hide: started any earlier, even on the next turn of the event
 * loop, it would delay the request itself, since `fetch` connects and writes later. If no request is
 * sent (it fails to connect, or a fetch other than Node's is used), `callback` never runs.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";

const BODY_SENT = "undici:request:bodySent";

export function onceRequestSent(callback: () => void): void {
  const onSent = (): void => {
    unsubscribe(BODY_SENT, onSent);
    setImmediate(callback);
  };
  subscribe(BODY_SENT, onSent);
}
