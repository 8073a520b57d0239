/**
 * What the transport says about a proxy, for any proxy URL a user may set: the variable it came from
 * (lower case first), the proxy by its origin, and never its password nor the base64 of its credentials.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { proxyFailure, proxySettings } from "../../../src/runtime/model/proxies.js";

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
