/**
 * The parts of undici the transport uses, each loaded from its own file of the package instead of from
 * its index. The index loads all of undici (its `fetch`, WebSocket, the mock, cache and retry layers, an
 * SQLite cache store), which was a tenth of the bin's start-up to its first request; these parts are about
 * half of that (docs/model-client.md, "Loading undici"). undici's package.json has no `exports` map, so
 * every file it ships can be required by path; the version is pinned exactly, and a test holds each part
 * to being the very class or function the index exports, and the proxy tests hold the tunnels.
 */
import { createRequire } from "node:module";
import type * as Undici from "undici";

const require = createRequire(import.meta.url);

// The index also gives every dispatcher undici's request API (`request`, `connect`, …), and the proxy
// agent opens its CONNECT tunnels with `connect`: done here as the index does it (the same functions,
// so loading the index too changes nothing).
const Dispatcher = require("undici/lib/dispatcher/dispatcher.js") as typeof Undici.Dispatcher;
Object.assign(Dispatcher.prototype, require("undici/lib/api/index.js"));

export const EnvHttpProxyAgent = require("undici/lib/dispatcher/env-http-proxy-agent.js") as typeof Undici.EnvHttpProxyAgent;
export const redirectInterceptor = require("undici/lib/interceptor/redirect.js") as typeof Undici.interceptors.redirect;
export const decompressInterceptor = require("undici/lib/interceptor/decompress.js") as typeof Undici.interceptors.decompress;
