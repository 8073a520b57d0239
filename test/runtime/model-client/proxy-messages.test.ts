/**
 * What the transport says about a proxy, for any proxy URL a user may set: the variable it came from
 * (lower case first), the proxy by its origin, and never its password nor the base64 of its credentials;
 * and, for any value at all, whether it is a proxy URL, or the refusal that names it.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { malformedProxy, parseProxyValue, proxyFailure, proxySettings } from "../../../src/runtime/model/proxies.js";
import { nodeHttpFetch } from "../../../src/runtime/model/node-http-fetch.js";
import { TransportRefusal } from "../../../src/runtime/model/transport-refusal.js";
import { EnvHttpProxyAgent } from "../../../src/runtime/model/undici-parts.js";

const target = new URL("https://api.example.com/v1/chat/completions");

it("the lower-case variable wins when both are set, an empty one turning the proxy off", () => {
  expect(proxySettings({ https_proxy: "http://a:1", HTTPS_PROXY: "http://b:2", HTTP_PROXY: "http://c:3", NO_PROXY: "x.test" })).toEqual({
    httpProxy: "http://c:3",
    httpsProxy: "http://a:1",
    noProxy: "x.test",
  });
  expect(proxySettings({ http_proxy: "", HTTP_PROXY: "http://c:3", no_proxy: "", NO_PROXY: "x.test" })).toEqual({ httpProxy: "", noProxy: "" });
  expect(proxyFailure(new Error("Proxy Authentication Required (407)"), target, { https_proxy: "", HTTPS_PROXY: "http://b:2" })).toBeUndefined();
});

it("a 407, a refused tunnel or an unreachable proxy names the proxy's origin and variable, never the credentials", () => {
  const credential = fc.string({ minLength: 1, maxLength: 24 });
  const failure = fc.constantFrom(
    () => new Error("Proxy Authentication Required (407)"),
    () => new Error("Proxy response (407) !== 200 when HTTP Tunneling"),
    () => new Error("Proxy response (403) !== 200 when HTTP Tunneling"),
    () => Object.assign(new Error("connect ECONNREFUSED 10.0.0.7:3128"), { code: "ECONNREFUSED", address: "10.0.0.7", port: 3128 }),
  );
  fc.assert(
    fc.property(credential, credential, fc.constantFrom("HTTPS_PROXY", "https_proxy", "HTTP_PROXY"), failure, (user, password, name, make) => {
      const proxy = `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@10.0.0.7:3128`;
      const refusal = proxyFailure(make(), target, { [name]: proxy });
      expect(refusal).toBeDefined();
      const text = `${refusal?.reason}\n${refusal?.hint}`;
      expect(text).toContain(`the proxy http://10.0.0.7:3128 (${name})`);
      // The message does not depend on what the credentials are (a password may well be a word of it), and the
      // credentials of a reference proxy appear in it in no form.
      const reference = proxyFailure(make(), target, { [name]: "http://proxy-user:Zq7-secret@10.0.0.7:3128" });
      const referenceText = `${reference?.reason}\n${reference?.hint}`;
      expect(text).toBe(referenceText);
      for (const secret of ["Zq7-secret", "proxy-user", Buffer.from("proxy-user:Zq7-secret").toString("base64")]) {
        expect(referenceText).not.toContain(secret);
      }
    }),
  );
});

it("a socket error of the endpoint itself is not blamed on the proxy", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:8443"), { code: "ECONNREFUSED", address: "127.0.0.1", port: 8443 });
  expect(proxyFailure(refused, target, { HTTPS_PROXY: "http://127.0.0.1:3128" })).toBeUndefined();
  expect(proxyFailure(refused, target, {})).toBeUndefined();
});

it("a socks5 proxy is named by its scheme, host and port (its URL has no origin)", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED 10.0.0.7:1080"), { code: "ECONNREFUSED", address: "10.0.0.7", port: 1080 });
  expect(proxyFailure(refused, target, { HTTPS_PROXY: "socks5://10.0.0.7" })?.reason).toBe("through the proxy socks5://10.0.0.7 (HTTPS_PROXY): the proxy cannot be reached (connection refused)");
});

const SCHEMES = ["", "http://", "https://", "HTTP://", "socks5://", "socks://", "socks4://", "ftp://", "http:", "//", " http://"];
/** Text that looks like a proxy value more often than arbitrary strings do. */
const proxyish = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.tuple(fc.constantFrom(...SCHEMES), fc.domain(), fc.option(fc.integer({ min: -1, max: 70_000 })), fc.constantFrom("", "/", "/x", "?q", "#f")).map(
    ([scheme, host, port, rest]) => `${scheme}${host}${port === null ? "" : `:${port}`}${rest}`,
  ),
);

it("any value is either a proxy URL undici can use (http:, https:, socks5:, socks:, with a host) or the refusal naming the variable, never a throw", () => {
  fc.assert(
    fc.property(proxyish, fc.constantFrom("HTTPS_PROXY", "http_proxy"), (value, name) => {
      const parsed = parseProxyValue(name, value);
      if (parsed.ok) {
        expect(["http:", "https:", "socks5:", "socks:"]).toContain(parsed.url.protocol);
        expect(parsed.url.hostname).not.toBe("");
        // Accepted means undici takes it: no request then fails as an invalid URL.
        void new EnvHttpProxyAgent({ httpProxy: value, httpsProxy: value }).close();
      } else {
        expect(parsed.refusal.variable).toBe(name);
        expect(parsed.refusal.message).toMatch(new RegExp(`^${name} is ".*", .*: expected a proxy URL such as http://host:port .*\\. Fix ${name} or unset it\\.$`, "s"));
        // Refused means undici would fail on it too (an empty value, no proxy to undici, is skipped before
        // this; a socks URL without a host it takes, to fail at the request): nothing that worked is refused.
        if (value !== "" && !/^\s*socks5?:/i.test(value)) expect(() => new EnvHttpProxyAgent({ httpProxy: "", httpsProxy: value })).toThrow();
      }
    }),
    { numRuns: 500 },
  );
});

it("a refused value's message never holds its password, whatever surrounds it", () => {
  // The marker makes the password a text the message cannot hold by chance.
  const MARK = "Zq7~";
  const part = fc.oneof(fc.string(), fc.constantFrom(...SCHEMES)).filter((text) => !text.includes(MARK));
  fc.assert(
    fc.property(fc.constantFrom(...SCHEMES), part, fc.string(), part, (scheme, user, secret, rest) => {
      const password = `${MARK}${secret}`;
      for (const value of [`${scheme}${user}:${password}@${rest}`, `${scheme}${user}:${encodeURIComponent(password)}@${rest}`]) {
        const parsed = parseProxyValue("HTTPS_PROXY", value);
        if (parsed.ok) continue;
        const text = `${parsed.refusal.message}\n${parsed.refusal.problem}\n${parsed.refusal.hint}`;
        expect(text).not.toContain(MARK);
        expect(text).not.toContain(encodeURIComponent(MARK));
        expect(text).toContain("***@");
      }
    }),
    { numRuns: 500 },
  );
});

it("the variables checked are the ones read: an empty one is no proxy, an upper-case one under a lower-case one is not read", () => {
  expect(malformedProxy({})).toBeUndefined();
  expect(malformedProxy({ HTTPS_PROXY: "", http_proxy: "" })).toBeUndefined();
  expect(malformedProxy({ https_proxy: "http://proxy:3128", HTTPS_PROXY: "127.0.0.1:9", NO_PROXY: "::garbage::" })).toBeUndefined();
  expect(malformedProxy({ https_proxy: "", HTTPS_PROXY: "127.0.0.1:9" })).toBeUndefined();
  expect(malformedProxy({ HTTPS_PROXY: "http://proxy:3128/", HTTP_PROXY: "socks5://proxy" })).toBeUndefined();
  expect(malformedProxy({ HTTPS_PROXY: "http://proxy:3128", HTTP_PROXY: "proxy:3128" })?.variable).toBe("HTTP_PROXY");
});

it("a program's own use of the transport: a malformed proxy fails the request with a refusal naming the variable, no ERR_INVALID_URL", async () => {
  const saved = { HTTPS_PROXY: process.env.HTTPS_PROXY, https_proxy: process.env.https_proxy };
  delete process.env.https_proxy;
  process.env.HTTPS_PROXY = "127.0.0.1:9";
  try {
    const failure: unknown = await nodeHttpFetch("https://api.example.test/v1/chat/completions", { method: "POST", body: "{}" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransportRefusal);
    expect((failure as TransportRefusal).reason).toBe('because HTTPS_PROXY is "127.0.0.1:9", which has no scheme (http:// is not assumed)');
    expect((failure as TransportRefusal).hint).toBe("Set HTTPS_PROXY to a proxy URL such as http://host:port (http://user:password@host:port for one that asks for credentials), or unset it.");
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});
