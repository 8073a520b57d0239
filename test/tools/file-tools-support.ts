/**
 * Runs the built-in tools through the real CLI (in this process) against the scripted server: the model
 * makes the given calls in one turn, then answers; the results are what the model read, in call order.
 * The server and the schemas of tools/ are there for tests that start the CLI otherwise.
 */
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { ChatMessage } from "../../src/runtime/loop/messages.js";
import { startScriptedServer, type ScriptedServer } from "../../src/scripted-server/scripted-server.js";
import { cliEnv, projectRoot, runCliInProcess, tempDir, writeFixtureSchemas, type CliRun } from "../cli/support.js";

export interface ToolCallSpec {
  name: string;
  args: Record<string, unknown> | string;
}

export interface ToolsRun extends CliRun {
  /** The content the model read for each call, in call order. */
  results: string[];
}

export interface BuiltInToolsHarness {
  /** The scripted server, for tests that run the CLI their own way. */
  server(): ScriptedServer;
  /** The schemas file of tools/. */
  schemas(): string;
  /** The calls in one turn, then an answer. `flags` go before the prompt (default: allow every tool). */
  run(workspace: string, calls: ToolCallSpec[], flags?: string[]): Promise<ToolsRun>;
}

/** One scripted server and the schemas of tools/ per test file. */
export function useBuiltInTools(): BuiltInToolsHarness {
  let server: ScriptedServer;
  let schemas: string;
  beforeAll(async () => {
    server = await startScriptedServer({ script: [] });
    schemas = writeFixtureSchemas(tempDir(), path.join(projectRoot, "tools"));
  });
  afterAll(async () => {
    await server.close();
  });
  return {
    server: () => server,
    schemas: () => schemas,
    async run(workspace, calls, flags = ["--allow", "*"]) {
      server.setScript([
        {
          toolCalls: calls.map((call, index) => ({
            id: `c${index + 1}`,
            name: call.name,
            arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args),
          })),
        },
        { content: "done" },
      ]);
      const before = server.requests.length;
      const run = await runCliInProcess(["--schemas", schemas, "--workspace", workspace, ...flags, "change the files"], cliEnv(server.baseURL), workspace);
      const last = server.requests.at(-1);
      const history = (server.requests.length > before ? last?.body?.messages ?? [] : []) as ChatMessage[];
      const results = calls.map((_call, index) => {
        const message = history.find((entry) => entry.role === "tool" && entry.tool_call_id === `c${index + 1}`);
        return message?.content ?? "(no result)";
      });
      return { ...run, results };
    },
  };
}
