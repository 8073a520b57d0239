/**
 * Node's on-disk cache of compiled module code (`module.enableCompileCache`, Node 22.1+), for the
 * commands that load the SDKs: a run after the first deserializes the code of the openai, undici, Ajv and
 * MCP modules instead of compiling it again, a third of the agent's start-up to its first request
 * (docs/tool-execution.md). Node keys the cache by file content and its own version, keeps it in the
 * system's temporary folder unless `NODE_COMPILE_CACHE` names another, and turns it off for
 * `NODE_DISABLE_COMPILE_CACHE=1`. Only modules loaded after the call are cached, so callers enable it
 * before their first heavy `import()`. A cache that cannot be written only costs speed.
 */
import { enableCompileCache } from "node:module";

export function enableModuleCompileCache(): void {
  enableCompileCache();
}
