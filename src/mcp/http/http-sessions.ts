/**
 * The open sessions of the HTTP server, bounded: at most `max` at once, counting sessions still being
 * initialized, and none evicted to make room (a new one is refused instead). A session is idle when it
 * has no request, stream or call in flight; `idle` lists those idle for at least `idleMs`. Each session
 * belongs to the credential that opened it (`owner`): another one is not let into it.
 */
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { RequestRecord } from "./request-log.js";
import type { IdsInFlight } from "../ids-in-flight.js";

export interface HttpSession {
  transport: StreamableHTTPServerTransport;
  /** Who opened it, as `Authenticate` named them (`anonymous` on a server without tokens). */
  owner: string;
  /** Requests, open streams and calls in flight. */
  busy: number;
  /** When `busy` last changed. */
  lastActive: number;
  /** The log records of this session's requests waiting for their response, by JSON-RPC id. */
  awaiting: Map<string | number, RequestRecord>;
  /** The ids of its requests not yet answered: a request reusing one is refused (409). */
  ids: IdsInFlight;
}

export class HttpSessions {
  private readonly open = new Map<string, HttpSession>();
  private starting = 0;

  constructor(private readonly max: number, private readonly idleMs: number) {}

  /** Holds a place for a session being initialized; `undefined` when there is no room. The release is idempotent. */
  reserve(): (() => void) | undefined {
    if (this.open.size + this.starting >= this.max) return undefined;
    this.starting += 1;
    let held = true;
    return () => {
      if (held) this.starting -= 1;
      held = false;
    };
  }

  add(id: string, session: HttpSession): void {
    this.open.set(id, session);
  }

  get(id: string): HttpSession | undefined {
    return this.open.get(id);
  }

  delete(id: string): void {
    this.open.delete(id);
  }

  all(): HttpSession[] {
    return [...this.open.values()];
  }

  get size(): number {
    return this.open.size;
  }

  idle(now: number): HttpSession[] {
    return this.all().filter((session) => session.busy === 0 && now - session.lastActive >= this.idleMs);
  }
}

export function touch(session: HttpSession, delta: number, now = Date.now()): void {
  session.busy += delta;
  session.lastActive = now;
}
