/**
 * The library's choice of strict or lenient tool definitions (`createToolExecutor({ strict })`), through
 * the loop, the real SDK and the scripted server that checks strict definitions as OpenAI does: the
 * definitions sent, and the same outcomes for a model's `null`s in both modes.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { createAgent } from "../../../src/runtime/loop/agent.js";
import { loadSchemas } from "../../../src/runtime/execution/load-schemas.js";
import { createToolExecutor } from "../../../src/runtime/execution/tool-executor.js";
import { createTurnRequester } from "../../../src/runtime/model/model-client.js";
import { startScriptedServer, type ScriptedServer } from "../../../src/scripted-server/scripted-server.js";
import type { SchemasFile } from "../../../src/shared/schemas-file.js";
import { projectRoot, tempDir } from "../../cli/support.js";
import { SENTINEL_API_KEY } from "../../support/sentinel-key.js";

let server: ScriptedServer;
let schemas: SchemasFile;
const schemasPath = path.join(projectRoot, "generated/schemas.json");

beforeAll(async () => {
  server = await startScriptedServer({ script: [] });
  const loaded = loadSchemas(schemasPath);
  if (!loaded.ok) throw new Error(loaded.error.message);
  schemas = loaded.schemas;
});
afterAll(() => server.close());

describe.each([true, false])("strict: %s", (strict) => {
  it("offers strictTools or tools, and reads null for read_file's optional parameters as not given", async () => {
    const executor = createToolExecutor({ schemas, schemasDir: path.dirname(schemasPath), strict });
    expect(executor.definitions).toBe(strict ? schemas.strictTools : schemas.tools);
    const workspace = tempDir();
    writeFileSync(path.join(workspace, "a.txt"), Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join("\n"));
    server.setScript([
      {
        toolCalls: [
          { id: "c1", name: "read_file", arguments: '{"path": "a.txt", "offset": null, "limit": null}' },
          { id: "c2", name: "read_file", arguments: '{"path": null, "offset": 3, "limit": null}' },
          { id: "c3", name: "list_files", arguments: '{"dir": null, "depth": null}' },
        ],
      },
      { content: "Done." },
    ]);
    const start = server.requests.length;
    const agent = createAgent({
      requestTurn: createTurnRequester({ apiKey: SENTINEL_API_KEY, baseURL: server.baseURL, maxRetries: 0 }),
      executor,
      model: "scripted",
      workspace,
    });
    expect(await agent.run("read")).toMatchObject({ kind: "answer", answer: "Done." });
    const requests = server.requests.slice(start);
    expect(requests.map((request) => request.violations)).toEqual([[], []]);
    expect(requests[0]?.body?.tools).toEqual(strict ? schemas.strictTools : schemas.tools);
    const results = agent.messages.filter((message) => message.role === "tool").map((message) => String(message.content));
    // The default limit (2000 lines) from the top, and a note saying where to read on.
    expect(results[0]!.startsWith("line 1\nline 2\n")).toBe(true);
    expect(results[0]).toContain("\nline 2000\n");
    expect(results[0]).not.toContain("line 2001");
    expect(results[1]).toContain("- path: expected string, got null");
    expect(results[2]).toBe("a.txt");
  });
});
