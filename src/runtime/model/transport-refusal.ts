/**
 * A request the transport could not carry for a reason it can name better than a socket error code: a
 * proxy that refused or could not be reached, a redirect it will not follow. `reason` is what went wrong,
 * `hint` what to do; neither holds a credential (proxy URLs and redirect targets are shown without them).
 */
export class TransportRefusal extends Error {
  constructor(
    /** e.g. `through the proxy http://proxy:8080 (HTTPS_PROXY): the proxy refused the credentials (407)`. */
    readonly reason: string,
    readonly hint: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = "TransportRefusal";
  }
}

/** The first `TransportRefusal` in an error's cause chain. */
export function transportRefusalIn(error: unknown): TransportRefusal | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    if (current instanceof TransportRefusal) return current;
    seen.add(current);
  }
  return undefined;
}

/** A URL as it may be printed: no user name, password, query or fragment. */
export function urlWithoutCredentials(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
