/**
 * `onceRequestSent(callback)`: runs `callback` once, right after the body of the next request has been
 * written to its socket, by the model client's transport (its `sigloop:request:bodySent` diagnostics
 * channel) or by Node's `fetch`, which the transport hands redirects to (undici's `undici:request:bodySent`).
 * For work that the model's latency should hide: started any earlier, even on the next turn of the event
 * loop, it would delay the request itself, since the request connects and writes later. If no request is
 * sent (it fails to connect, or another `fetch` is used), `callback` never runs.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { REQUEST_SENT_CHANNEL } from "../runtime/model/node-http-fetch.js";

const BODY_SENT_CHANNELS = [REQUEST_SENT_CHANNEL, "undici:request:bodySent"];

export function onceRequestSent(callback: () => void): void {
  const onSent = (): void => {
    for (const name of BODY_SENT_CHANNELS) unsubscribe(name, onSent);
    setImmediate(callback);
  };
  for (const name of BODY_SENT_CHANNELS) subscribe(name, onSent);
}
