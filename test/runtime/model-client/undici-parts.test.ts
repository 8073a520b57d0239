/**
 * The transport loads only the parts of undici it uses: each is the very class or function undici's index
 * exports (so an upgrade that moves a file fails here, not in a user's proxy), and a request sent through
 * the transport, proxy routing and decompression included, leaves undici's index unloaded.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { decompressInterceptor, EnvHttpProxyAgent, redirectInterceptor } from "../../../src/runtime/model/undici-parts.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

it("each part is what undici's index exports", () => {
  const undici = createRequire(import.meta.url)("undici") as typeof import("undici");
  expect(EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
  expect(redirectInterceptor).toBe(undici.interceptors.redirect);
  expect(decompressInterceptor).toBe(undici.interceptors.decompress);
});

it("a gzip-encoded request through the transport leaves undici's index unloaded; the proxy agent still has the request API its tunnels use", () => {
  const transport = pathToFileURL(path.join(root, "src/runtime/model/node-http-fetch.ts")).href;
  const parts = pathToFileURL(path.join(root, "src/runtime/model/undici-parts.ts")).href;
  const script = `
    import { createServer } from "node:http";
    import { createRequire } from "node:module";
    import { gzipSync } from "node:zlib";
    const { nodeHttpFetch } = await import(${JSON.stringify(transport)});
    const { EnvHttpProxyAgent } = await import(${JSON.stringify(parts)});
    const server = createServer((_req, res) => res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync("decoded")));
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const response = await nodeHttpFetch("http://127.0.0.1:" + server.address().port + "/", { method: "POST", body: "{}" });
    const text = await response.text();
    server.close();
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes("/node_modules/undici/"));
    console.log(JSON.stringify({ text, parts: loaded.some((file) => file.endsWith("/lib/dispatcher/env-http-proxy-agent.js")), index: loaded.some((file) => file.endsWith("/node_modules/undici/index.js")), connect: typeof EnvHttpProxyAgent.prototype.connect }));
    process.exit(0);
  `;
  const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, encoding: "utf8", env: { ...process.env, HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "127.0.0.1" } });
  expect(JSON.parse(out)).toEqual({ text: "decoded", parts: true, index: false, connect: "function" });
});
