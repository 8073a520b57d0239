/**
 * A forged schemas file whose recursive definition is a union of two branches that both lead back to it
 * (`T = { next?: T } | { next?: T }`) passes every load check, and doubles Ajv's work (it tries every
 * branch, `allErrors`) at each level of the argument: on a 2-core machine a 191-character argument 20
 * levels deep took 18 s on the main thread, 30 levels deep (here, 281 characters) would take hours, with
 * `ping`, `--tool-timeout` and Ctrl-C all waiting behind it. Such a schema is now validated in a worker
 * that is stopped at the call's time limit: the MCP server (stdio and --http) answers `ping` meanwhile,
 * the call fails with a message naming the tool and the limit, SIGINT ends the server, and the agent's
 * call ends at its `--tool-timeout` with the model told why.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "../../src/scripted-server/scripted-server.js";
import type { SchemasFile } from "../../src/shared/schemas-file.js";
import { cliEnv, spawnCli } from "../cli/support.js";
import { connectClient, startHttpServer } from "../mcp/http-support.js";
import { initializeRaw, resultText, type RawRun } from "../mcp/support.js";
import { serversKilledAfterEach, toolFolder, type ToolFolder } from "./support.js";

const TOOL = [
  "/**",
  " * Takes a chain.",
  " * @param value The chain.",
  " */",
  "export function take(value: { next?: object }): string {",
  '  return "took";',
  "}",
  "",
].join("\n");

/** The forgery: gen's own schemas file, its parameter replaced by a recursive union of overlapping branches. */
function forgedFolder(): ToolFolder {
  return toolFolder({ "take.ts": TOOL }, (schemas: SchemasFile) => {
    const parameters = schemas.tools[0]!.function.parameters;
    const branch = { type: "object", properties: { next: { $ref: "#/definitions/T" } } };
    parameters.properties.value = { $ref: "#/definitions/T" };
    parameters.definitions = { T: { anyOf: [branch, branch] } };
  });
}

/** `{"next": {"next": … 1 …}}`: every level fails both branches, so Ajv's work doubles per level. */
function chain(depth: number, bottom: unknown = 1): unknown {
  let value = bottom;
  for (let level = 0; level < depth; level++) value = { next: value };
  return value;
}

const HOSTILE = { value: chain(30) };
const LIMIT_MESSAGE =
  "The arguments for take could not be checked within the call's time limit of 2 s (its parameters schema makes checking them slow), so checking was stopped and it was not run. Send smaller or less nested arguments.";

const spawnServer = serversKilledAfterEach();

async function serve(folder: ToolFolder, timeout: string): Promise<RawRun> {
  const run = spawnServer(["--workspace", folder.dir, "--schemas", folder.schemas, "--tool-timeout", timeout]);
  await initializeRaw(run);
  return run;
}

describe("a schema whose validation has no bound is stopped at the call's time limit", () => {
  it("over stdio: ping is answered during the call, the call fails naming the tool and the limit, the next call validates as usual", async () => {
    const server = await serve(forgedFolder(), "2000");
    expect(JSON.stringify(HOSTILE).length).toBe(281);
    const started = performance.now();
    const call = server.request(1, "tools/call", { name: "take", arguments: HOSTILE });
    await server.request("ping", "ping");
    expect(performance.now() - started).toBeLessThan(5_000);
    const answered = (await call).result as { isError?: boolean };
    expect(answered.isError).toBe(true);
    expect(resultText(answered)).toBe(LIMIT_MESSAGE);
    const wrong = await server.request(2, "tools/call", { name: "take", arguments: { value: chain(2) } });
    expect(resultText(wrong.result as object)).toContain("The arguments for take do not match its parameters, so it was not run:\n- value.next.next: expected");
    const fine = await server.request(3, "tools/call", { name: "take", arguments: { value: chain(5, {}) } });
    expect(resultText(fine.result as object)).toBe("took");
  });

  it("over stdio: SIGINT during the call ends the server with exit 130", async () => {
    const server = await serve(forgedFolder(), "600000");
    const call = server.request(1, "tools/call", { name: "take", arguments: HOSTILE });
    await server.request("ping", "ping");
    server.child.kill("SIGINT");
    expect(await server.exit).toEqual({ code: 130, signal: null });
    expect(resultText((await call).result as object)).toBe("The tool take was interrupted before it finished; it has no result.");
  });

  it("over --http: ping is answered during the call, and the call fails at the limit", async () => {
    const folder = forgedFolder();
    const server = await startHttpServer(["--workspace", folder.dir, "--schemas", folder.schemas, "--http", "127.0.0.1:0", "--tool-timeout", "2000"]);
    const { client } = await connectClient(server.url);
    try {
      const started = performance.now();
      const call = client.callTool({ name: "take", arguments: HOSTILE });
      await client.ping();
      expect(performance.now() - started).toBeLessThan(5_000);
      const answered = await call;
      expect(answered.isError).toBe(true);
      expect(resultText(answered)).toBe(LIMIT_MESSAGE);
    } finally {
      await client.close();
      await server.stop();
    }
  });
});

describe("the agent", () => {
  const model = startScriptedServer({ script: [] });
  afterAll(async () => (await model).close());

  it("ends such a call at --tool-timeout and tells the model why", async () => {
    const server = await model;
    const folder = forgedFolder();
    server.setScript([{ toolCalls: [{ id: "call_1", name: "take", arguments: JSON.stringify(HOSTILE) }] }, { content: "gave up" }]);
    const run = await spawnCli(["--schemas", folder.schemas, "--workspace", folder.dir, "--tool-timeout", "2000", "--no-stream", "go"], cliEnv(server.baseURL), folder.dir).done;
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("gave up\n");
    const messages = (server.requests.at(-1)?.body?.messages ?? []) as { role: string; content: string }[];
    expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual([LIMIT_MESSAGE]);
  });
});
