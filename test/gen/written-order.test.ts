/**
 * The model reads enum values and union branches in the order the source writes them (string and number
 * literals, TypeScript enums, aliases of unions flattened in place), in `tools`, `strictTools` and
 * `outputs`, and the bytes are the same cold and after a watch-mode edit.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runGen, type GenIo } from "../../src/gen/command/run-gen.js";
import type { JsonSchema, SchemasFile } from "../../src/shared/schemas-file.js";
import { generate, writeTree } from "./support.js";

const source = [
  'type Metric = "m" | "km";',
  'export type Unit = Metric | "mi" | "ft";',
  'export enum Level { High = "high", Low = "low", Mid = "mid" }',
  'interface Reading { kind: "z" | "a"; level: Level }',
  "",
  "/**",
  " * Converts.",
  " * @param unit The unit.",
  " * @param n A number.",
  " * @param shape A shape.",
  " * @param reading A reading.",
  " * @param units Units.",
  " */",
  'export function convert(unit: "m" | "km" | "mi" | "ft", n: 3 | 1 | 2, shape: { kind: "square"; side: number } | { kind: "circle"; r: number } | "none", reading: Reading, units?: Unit[]): { unit: Unit; note: "z" | "b" | null } {',
  "  return { unit, note: null };",
  "}",
  "",
].join("\n");

function properties(schema: JsonSchema): Record<string, JsonSchema> {
  return schema.properties as Record<string, JsonSchema>;
}

describe("written order", () => {
  const root = writeTree({ "tools/units.ts": source });
  const generation = generate(path.join(root, "tools"));
  const file = generation.file as SchemasFile;

  it("in tools: literal unions, numbers, an enum, an alias of a union flattened, branches of a union", () => {
    const parameters = properties(file.tools[0]!.function.parameters);
    expect(parameters.unit!.enum).toEqual(["m", "km", "mi", "ft"]);
    expect(parameters.n!.enum).toEqual([3, 1, 2]);
    expect(properties(parameters.reading!).kind!.enum).toEqual(["z", "a"]);
    expect(properties(parameters.reading!).level!.enum).toEqual(["high", "low", "mid"]);
    expect((parameters.units!.items as JsonSchema).enum).toEqual(["m", "km", "mi", "ft"]);
    expect((parameters.shape!.anyOf as JsonSchema[]).map((branch) => (branch.const as string | undefined) ?? (properties(branch).kind!.const as string))).toEqual(["square", "circle", "none"]);
  });

  it("in strictTools and outputs", () => {
    const strict = properties(file.strictTools![0]!.function.parameters);
    expect(strict.unit!.enum).toEqual(["m", "km", "mi", "ft"]);
    expect(strict.n!.enum).toEqual([3, 1, 2]);
    const output = properties(file.outputs!.convert!);
    expect(output.unit!.enum).toEqual(["m", "km", "mi", "ft"]);
    expect(JSON.stringify(output.note)).toContain('"enum":["z","b"]');
  });

  it("is the same bytes cold and after a watch-mode edit", async () => {
    const watched = writeTree({ "tools/units.ts": source.replace('"m" | "km" | "mi" | "ft", n', '"ft" | "mi", n') });
    const out = path.join(watched, "generated", "schemas.json");
    let lines = 0;
    const io: GenIo = { cwd: watched, stdout: () => {}, stderr: () => void (lines += 1) };
    const handle = runGen(["--watch"], io);
    if (typeof handle === "number") throw new Error(`watch exited with ${handle}`);
    try {
      for (let waited = 0; lines < 1 && waited < 20_000; waited += 25) await new Promise((resolve) => setTimeout(resolve, 25));
      writeFileSync(path.join(watched, "tools", "units.ts"), source);
      const cold = generation.text!;
      for (let waited = 0; readFileSync(out, "utf8") !== cold && waited < 20_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(readFileSync(out, "utf8")).toBe(cold);
    } finally {
      handle.close();
    }
  }, 40_000);
});
