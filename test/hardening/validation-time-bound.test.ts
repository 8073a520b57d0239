/**
 * One argument cannot freeze the MCP server: patterns run in linear time whatever the schema says (the
 * template-literal pattern gen writes, a `@pattern` tag, a hostile schemas file's `^(a+)+$`),
 * `uniqueItems` over 10,000 objects is linear, and `ping` sent right behind such a call is answered at once.
 */
import { describe, expect, it } from "vitest";
import { initializeRaw, resultText, type RawRun } from "../mcp/support.js";
import { serversKilledAfterEach, toolFolder } from "./support.js";

const TOOL = [
  "/**",
  " * Takes hostile input.",
  " * @param key A key.",
  " * @param word A word.",
  " * @pattern ^(a|aa)+$",
  " * @param rows Rows.",
  " * @uniqueItems",
  " */",
  "export function take(key: `${string}:${string}:${number}`, word?: string, rows?: { id: number; name: string }[]): string {",
  "  return `took ${key.length}`;",
  "}",
  "",
].join("\n");

const spawnServer = serversKilledAfterEach();

async function serve(edit?: Parameters<typeof toolFolder>[1]): Promise<RawRun> {
  const folder = toolFolder({ "take.ts": TOOL }, edit);
  const run = spawnServer(["--workspace", folder.dir, "--schemas", folder.schemas]);
  await initializeRaw(run);
  return run;
}

/** Sends a call and a ping right behind it; both answers, and how long the ping waited. */
async function callThenPing(server: RawRun, id: number, args: object): Promise<{ call: Record<string, unknown>; pingMs: number }> {
  const started = performance.now();
  const call = server.request(id, "tools/call", { name: "take", arguments: args });
  await server.request(`ping-${id}`, "ping");
  const pingMs = performance.now() - started;
  return { call: await call, pingMs };
}

describe("validation is bounded whatever the schema says", () => {
  it("the generated template-literal pattern, a @pattern tag and uniqueItems answer 16 KB to 10,000 items at once, ping too", async () => {
    const server = await serve();
    const key = await callThenPing(server, 1, { key: `:${"1".repeat(16_384)}x` });
    expect(resultText(key.call.result as object)).toContain("- key: expected");
    expect(key.pingMs).toBeLessThan(5_000);
    const word = await callThenPing(server, 2, { key: "a:b:1", word: `${"a".repeat(16_384)}b` });
    expect(resultText(word.call.result as object)).toContain("- word: ");
    expect(word.pingMs).toBeLessThan(5_000);
    const rows = Array.from({ length: 10_000 }, (_, id) => ({ id, name: "row" }));
    const unique = await callThenPing(server, 3, { key: "a:b:1", rows: [...rows, rows[0]] });
    expect(resultText(unique.call.result as object)).toContain("- rows: expected no duplicate items (items 0 and 10000 are equal)");
    expect(unique.pingMs).toBeLessThan(5_000);
    const fine = await server.request(4, "tools/call", { name: "take", arguments: { key: "a:b:1", rows } });
    expect(resultText(fine.result as object)).toBe("took 5");
  });

  it("a hostile schemas file's ^(a+)+$ runs in linear time too", async () => {
    const server = await serve((schemas) => {
      const parameters = schemas.tools[0]!.function.parameters;
      parameters.properties.word = { type: "string", pattern: "^(a+)+$" };
    });
    const word = await callThenPing(server, 1, { key: "a:b:1", word: `${"a".repeat(65_536)}b` });
    expect(resultText(word.call.result as object)).toContain("- word: ");
    expect(word.pingMs).toBeLessThan(5_000);
  });

});
