/**
 * `onceRequestSent(callback)`: runs `callback` once, right after the body of the next request has been
 * written to its socket, by the model client's transport or by Node's `fetch`: both are undici (the
 * package and the copy inside Node), which publishes `undici:request:bodySent` on a diagnostics channel.
 * For work that the model's latency should hide: started any earlier, even on the next turn of the event
 * loop, it would delay the request itself, since the request connects and writes later. If no request is
 * sent (it fails to connect, or another `fetch` is used), `callback` never runs.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";

const BODY_SENT_CHANNEL = "undici:request:bodySent";

export function onceRequestSent(callback: () => void): void {
  const onSent = (): void => {
    unsubscribe(BODY_SENT_CHANNEL, onSent);
    setImmediate(callback);
  };
  subscribe(BODY_SENT_CHANNEL, onSent);
}
