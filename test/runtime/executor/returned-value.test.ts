/**
 * `run`: the executor's outcome plus what the tool returned, for callers that send the value itself
 * (MCP's structuredContent) rather than the capped text; `execute` stays the loop's plain outcome.
 */
import { describe, expect, it } from "vitest";
import { createToolExecutor } from "../../../src/runtime/execution/tool-executor.js";
import { fixtureDir, fixtureSchemas } from "../../fixtures/executor/schemas.js";

const context = () => ({ workspace: fixtureDir, signal: new AbortController().signal });
const call = (name: string, args: object) => ({ id: "c1", type: "function" as const, function: { name, arguments: JSON.stringify(args) } });

describe("the executor's run", () => {
  it("keeps the returned value and the notes beside the capped text", async () => {
    const executor = createToolExecutor({ schemas: fixtureSchemas, schemasDir: fixtureDir, maxResultChars: 20 });
    const run = await executor.run(call("repeat", { count: "30", extra: 1 }), context());
    expect(run.status).toBe("ok");
    expect(run.returned).toEqual({ value: "x".repeat(30), notes: ["[ignored unknown arguments: extra]", '[converted arguments: count from string "30" to 30]'] });
    const full = [...run.returned!.notes, "x".repeat(30)].join("\n");
    expect(run.content).toBe(`${full.slice(0, 20)}\n[truncated: showing the first 20 of ${full.length} characters]`);
    const structured = await executor.run(call("structured", {}), context());
    expect(structured.returned?.value).toEqual({ files: ["a.txt", "b.txt"], total: 2, big: 10n });
  });

  it("has no returned value unless the tool returned, and execute gives the outcome alone", async () => {
    const executor = createToolExecutor({ schemas: fixtureSchemas, schemasDir: fixtureDir });
    const failed = await executor.run(call("explode", {}), context());
    expect(failed.status).toBe("tool_error");
    expect(failed.returned).toBeUndefined();
    expect(Object.keys(await executor.execute(call("structured", {}), context()))).toEqual(["status", "content"]);
  });
});
