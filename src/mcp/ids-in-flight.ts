/**
 * The ids of one connection's requests not yet answered (a stdio connection, an HTTP session). A
 * request whose id is among them is refused before the SDK sees it: the SDK keys each request's
 * cancellation, and over HTTP its response stream, by id, so a second request with the id would take
 * over the first's and one of the two answers would be lost or go astray. An id is free again once its
 * response has been sent, or once the client cancels its request (`notifications/cancelled`: no
 * response follows, as MCP says). Ids are compared as written (id-literals.ts).
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { idAsWritten, type WireId } from "./id-literals.js";

export class IdsInFlight {
  private readonly ids = new Set<WireId>();

  /** Notes a message from the client; when it is a request whose id is still in flight, that id (refuse it with `idInUse`). */
  arrived(message: JSONRPCMessage): WireId | undefined {
    if ("method" in message && "id" in message) {
      if (this.ids.has(message.id)) return message.id;
      this.ids.add(message.id);
    } else if ("method" in message && message.method === "notifications/cancelled") {
      const requestId: unknown = message.params?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") this.ids.delete(requestId);
    }
    return undefined;
  }

  /** Notes a message to the client: a response frees its id. */
  sent(message: JSONRPCMessage): void {
    if (!("method" in message) && "id" in message && message.id !== undefined) this.ids.delete(message.id);
  }

  /** Frees the id of a request that will not be answered by the SDK (it refused the request before dispatching it). */
  release(id: WireId): void {
    this.ids.delete(id);
  }
}

/** The -32600 message for a request refused by `arrived`. */
export function idInUse(id: WireId): string {
  return `Invalid Request: the id ${idAsWritten(id)} is in use by a request not yet answered; give each request in flight its own id (this one is free again once that request is answered).`;
}
