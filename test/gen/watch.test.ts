import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGen, type GenIo } from "../../src/gen/command/run-gen.js";
import type { WatchHandle } from "../../src/gen/command/watch-tools.js";
import type { SchemasFile } from "../../src/shared/schemas-file.js";
import { generate, writeTree } from "./support.js";

const files = {
  "tools/types.ts": "export interface Options {\n  depth: number;\n}\n",
  "tools/a.ts": 'import type { Options } from "./types";\n\n/** Tool a. @param options How. */\nexport function a(options: Options): void {}\n',
  "tools/b.ts": "/** Tool b. @param word A word. */\nexport function b(word: string): string {\n  return word;\n}\n",
};

let root: string;
let handle: WatchHandle;
const lines: string[] = [];
const outFile = () => path.join(root, "out/schemas.json");
const schemas = () => JSON.parse(readFileSync(outFile(), "utf8")) as SchemasFile;

/** Waits (generously: the machine is shared) until `count` stderr lines have arrived. */
async function linesReach(count: number): Promise<void> {
  for (let waited = 0; lines.length < count && waited < 20_000; waited += 25) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(lines.length).toBeGreaterThanOrEqual(count);
  // Let any duplicate event arrive before counting lines.
  await new Promise((resolve) => setTimeout(resolve, 300));
}

beforeAll(() => {
  root = writeTree(files);
  const io: GenIo = { cwd: root, stdout: () => {}, stderr: (text) => lines.push(...text.trimEnd().split("\n")) };
  const result = runGen(["--tools", "tools", "--out", "out/schemas.json", "--watch"], io);
  if (typeof result === "number") throw new Error(`watch exited with ${result}: ${lines.join("\n")}`);
  handle = result;
});

afterAll(() => handle?.close());

describe("--watch", () => {
  it("generates once on start", () => {
    expect(lines).toEqual([expect.stringMatching(/^gen: watching tools: 2 tools → out\/schemas\.json \(\d+ ms\)$/)]);
    expect(schemas().tools.map((tool) => tool.function.name)).toEqual(["a", "b"]);
  });

  it("regenerates after an edit to a tool file, with one line", async () => {
    writeFileSync(path.join(root, "tools/b.ts"), "/** Tool b. @param word A word. @param times How often. */\nexport function b(word: string, times = 2): string {\n  return word.repeat(times);\n}\n");
    await linesReach(2);
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^gen: tools\/b\.ts: 2 tools → out\/schemas\.json \(\d+ ms\)$/)]);
    expect(schemas().tools[1]!.function.parameters.properties.times).toEqual({ type: "number", description: "How often.", default: 2 });
  });

  it("regenerates the tools that import a changed file", async () => {
    writeFileSync(path.join(root, "tools/types.ts"), "export interface Options {\n  depth: number;\n  /** Follow links. */\n  follow?: boolean;\n}\n");
    await linesReach(3);
    expect(lines.slice(2)).toEqual([expect.stringMatching(/^gen: tools\/types\.ts: 2 tools → out\/schemas\.json \(\d+ ms\)$/)]);
    expect(schemas().tools[0]!.function.parameters.properties.options).toEqual({
      type: "object", description: "How.",
      properties: { depth: { type: "number" }, follow: { type: "boolean", description: "Follow links." } },
      additionalProperties: false, required: ["depth"],
    });
  });

  it("reports errors and leaves the file as it was", async () => {
    const before = readFileSync(outFile(), "utf8");
    writeFileSync(path.join(root, "tools/b.ts"), "/** Tool b. @param word A word. */\nexport function b(word: string): number {\n  return word;\n}\n");
    await linesReach(5);
    expect(lines.slice(3)).toEqual([
      "tools/b.ts:3:3 error: Type 'string' is not assignable to type 'number'. (TS2322)",
      expect.stringMatching(/^gen: tools\/b\.ts: 1 error; out\/schemas\.json left as it was \(\d+ ms\)$/),
    ]);
    expect(readFileSync(outFile(), "utf8")).toBe(before);
  });

  it("picks up a new tool file, and ends where a cold run would", async () => {
    writeFileSync(path.join(root, "tools/b.ts"), files["tools/b.ts"]);
    await linesReach(6);
    writeFileSync(path.join(root, "tools/c.ts"), "/** Tool c. */\nexport const c = (): string => \"c\";\n");
    await linesReach(7);
    expect(lines.slice(5)).toEqual([
      expect.stringMatching(/^gen: tools\/b\.ts: 2 tools → out\/schemas\.json \(\d+ ms\)$/),
      expect.stringMatching(/^gen: tools\/c\.ts: 3 tools → out\/schemas\.json \(\d+ ms\)$/),
    ]);
    const cold = generate(path.join(root, "tools"), outFile());
    expect(readFileSync(outFile(), "utf8")).toBe(cold.text);
  });
});
