import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
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

describe("--watch and imported files that come and go", () => {
  const shared = "export interface Shared {\n  depth: number;\n}\n";
  const importer = (specifier: string) => `import type { Shared } from "${specifier}";\n\n/** Tool u. @param s How. */\nexport function u(s: Shared): void {}\n`;
  const handles: WatchHandle[] = [];
  afterAll(() => handles.forEach((watching) => watching.close()));

  /** A watch over a fresh tree, with its own stderr lines and the wait for them (as `linesReach` above). */
  function watchTree(tree: Record<string, string>) {
    const at = writeTree(tree);
    const seen: string[] = [];
    const io: GenIo = { cwd: at, stdout: () => {}, stderr: (text) => seen.push(...text.trimEnd().split("\n")) };
    const result = runGen(["--tools", "tools", "--out", "out/schemas.json", "--watch"], io);
    if (typeof result === "number") throw new Error(`watch exited with ${result}: ${seen.join("\n")}`);
    handles.push(result);
    const reach = async (count: number) => {
      for (let waited = 0; seen.length < count && waited < 20_000; waited += 25) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(seen.length).toBeGreaterThanOrEqual(count);
      await new Promise((resolve) => setTimeout(resolve, 300));
    };
    const properties = () => (JSON.parse(readFileSync(path.join(at, "out/schemas.json"), "utf8")) as SchemasFile).tools[0]!.function.parameters.properties;
    return { at, seen, reach, properties };
  }
  const success = (what: string) => expect.stringMatching(new RegExp(`^gen: ${what.replaceAll(".", "\\.")}: 1 tool → out/schemas\\.json \\(\\d+ ms\\)$`));
  const failure = (what: string) => expect.stringMatching(new RegExp(`^gen: ${what.replaceAll(".", "\\.")}: 1 error; out/schemas\\.json left as it was \\(\\d+ ms\\)$`));
  const notFound = (specifier: string) => `tools/u.ts:1:29 error: Cannot find module '${specifier}' or its corresponding type declarations. (TS2307)`;

  it("recovers when an imported file outside the tools folder is deleted and restored (a git stash, a branch switch)", async () => {
    const { at, seen, reach, properties } = watchTree({ "tools/u.ts": importer("../lib/shared"), "lib/shared.ts": shared });
    await reach(1);
    renameSync(path.join(at, "lib/shared.ts"), path.join(at, "away.ts"));
    await reach(3);
    expect(seen.slice(1)).toEqual([notFound("../lib/shared"), failure("lib/shared.ts")]);
    renameSync(path.join(at, "away.ts"), path.join(at, "lib/shared.ts"));
    await reach(4);
    expect(seen.slice(3)).toEqual([success("lib/shared.ts")]);
    writeFileSync(path.join(at, "lib/shared.ts"), "export interface Shared {\n  depth: number;\n  wide: boolean;\n}\n");
    await reach(5);
    expect(seen.slice(4)).toEqual([success("lib/shared.ts")]);
    expect(properties().s).toEqual({ type: "object", description: "How.", properties: { depth: { type: "number" }, wide: { type: "boolean" } }, additionalProperties: false, required: ["depth", "wide"] });
    // Its folder deleted and made again at once (a branch switch): the folder's new self is watched.
    rmSync(path.join(at, "lib"), { recursive: true });
    mkdirSync(path.join(at, "lib"));
    writeFileSync(path.join(at, "lib/shared.ts"), shared);
    await reach(6);
    writeFileSync(path.join(at, "lib/shared.ts"), "export interface Shared {\n  tall: boolean;\n}\n");
    await reach(7);
    expect(seen.slice(5)).toEqual([success("lib/shared.ts"), success("lib/shared.ts")]);
    expect(properties().s).toMatchObject({ properties: { tall: { type: "boolean" } } });
  });

  it("regenerates when a file a tool imports is created after the tool, also in a folder that did not exist", async () => {
    const { at, seen, reach, properties } = watchTree({ "tools/u.ts": importer("../lib/later.js"), "lib/other.ts": "export const other = 1;\n" });
    await reach(2);
    expect(seen).toEqual([notFound("../lib/later.js"), failure("watching tools")]);
    writeFileSync(path.join(at, "lib/later.ts"), shared);
    await reach(3);
    expect(seen.slice(2)).toEqual([success("lib/later.ts")]);
    expect(properties().s).toMatchObject({ properties: { depth: { type: "number" } } });
    // In a folder not there yet: the nearest folder above it that is there is watched, until it appears.
    writeFileSync(path.join(at, "tools/u.ts"), importer("../new/deep/shared"));
    await reach(5);
    expect(seen.slice(3)).toEqual([notFound("../new/deep/shared"), failure("tools/u.ts")]);
    mkdirSync(path.join(at, "staged/deep"), { recursive: true });
    writeFileSync(path.join(at, "staged/deep/shared.ts"), "export interface Shared {\n  late: string;\n}\n");
    renameSync(path.join(at, "staged"), path.join(at, "new"));
    await reach(6);
    expect(seen.slice(5)).toEqual([success("new")]);
    expect(properties().s).toMatchObject({ properties: { late: { type: "string" } } });
    // And from then on the folder itself.
    writeFileSync(path.join(at, "new/deep/shared.ts"), "export interface Shared {\n  later: string;\n}\n");
    await reach(7);
    expect(seen.slice(6)).toEqual([success("new/deep/shared.ts")]);
    expect(properties().s).toMatchObject({ properties: { later: { type: "string" } } });
  });
});
