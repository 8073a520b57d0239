import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { runGen } from "../../src/gen/command/run-gen.js";
import { compileStrict, generate, messages, writeTree } from "./support.js";

const TOOLS = `
export type Unit = "C" | "F";
export interface Reading {
  /** Degrees. */
  temp: number;
  unit: Unit;
  at?: Date;
}

/** Weather now. @readOnly @openWorld true */
export async function weather(city: string): Promise<{ temp: number; unit: Unit }> { return { temp: city.length, unit: "C" }; }
/** Last reading. @idempotent @destructive false */
export function reading(): Reading { return { temp: 1, unit: "F" }; }
/** Counts by word. */
export function counts(): Record<string, number> { return {}; }
/** A list. */
export function names(): string[] { return []; }
/** Text. */
export async function text(): Promise<string> { return ""; }
/** Maybe. */
export function maybe(): { a: number } | undefined { return undefined; }
/** Nothing. */
export function nothing(): void {}
`;

function generated(files: Record<string, string>) {
  const root = writeTree(files);
  const generation = generate(path.join(root, "tools"));
  return { root, generation, file: generation.file };
}

describe("outputs: the schema of a returned JSON object", () => {
  const { generation, file } = generated({ "tools/t.ts": TOOLS });

  it("is recorded by tool name for object return types only, awaited, closed and self-contained", () => {
    expect(messages(generation.diagnostics).filter((line) => line.includes(" error: "))).toEqual([]);
    expect(file!.outputs).toEqual({
      counts: { type: "object", additionalProperties: { type: "number" } },
      reading: {
        type: "object",
        properties: { temp: { type: "number", description: "Degrees." }, unit: { type: "string", enum: ["C", "F"] }, at: { type: "string", format: "date-time" } },
        additionalProperties: false,
        required: ["temp", "unit"],
      },
      weather: { type: "object", properties: { temp: { type: "number" }, unit: { type: "string", enum: ["C", "F"] } }, additionalProperties: false, required: ["temp", "unit"] },
    });
    for (const schema of Object.values(file!.outputs!)) expect(compileStrict(schema).logged).toEqual([]);
  });

  it("prints nothing of typescript-json-schema's own for a returned object literal whose member is a call", () => {
    const warn = vi.spyOn(console, "warn");
    try {
      const { generation: inferred, file: made } = generated({ "tools/t.ts": `/** A. */\nexport function a(x: number) { return { size: Math.abs(x), x }; }\n` });
      expect(messages(inferred.diagnostics).filter((line) => !line.includes("no description"))).toEqual([]);
      expect(made!.outputs).toEqual({ a: { type: "object", properties: { size: { type: "number" }, x: { type: "number" } }, additionalProperties: false, required: ["size", "x"] } });
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("warns and leaves it out when the returned object holds something JSON cannot carry", () => {
    const { generation: withMethod } = generated({ "tools/t.ts": `/** A. */\nexport function a(): { ok: boolean; run: () => void } { return { ok: true, run() {} }; }\n` });
    expect(withMethod.file!.outputs).toEqual({});
    expect(messages(withMethod.diagnostics, "/").join("\n")).toContain(
      `warning: tool "a" gets no output schema: its return type has "() => void" at result.run, which JSON cannot carry; MCP clients receive its result as text only`,
    );
  });
});

describe("annotations: MCP hints from JSDoc tags", () => {
  it("records only the tags written, in MCP's order, bare meaning true", () => {
    const { file } = generated({ "tools/t.ts": TOOLS });
    expect(file!.annotations).toEqual({
      reading: { destructiveHint: false, idempotentHint: true },
      weather: { readOnlyHint: true, openWorldHint: true },
    });
  });

  it("refuses a value other than true or false, and @readOnly with @destructive", () => {
    const { generation } = generated({
      "tools/t.ts": `/** A. @readOnly yes */\nexport function a(): void {}\n/** B. @readOnly @destructive */\nexport function b(): void {}\n`,
    });
    const lines = messages(generation.diagnostics, "/").filter((line) => line.includes(" error: "));
    expect(lines.map((line) => line.replace(/^.*error: /, ""))).toEqual([
      `tag @readOnly of tool "a" takes nothing, true or false, not "yes"`,
      `tool "b" is tagged both @readOnly and @destructive; a read-only tool changes nothing, so drop one`,
    ]);
    expect(generation.file).toBeUndefined();
  });

  it("the example tools are closed-world; those that read are read-only (the readers idempotent), those that write destructive", () => {
    const schemas = JSON.parse(readFileSync(path.resolve("generated/schemas.json"), "utf8"));
    expect(schemas.annotations).toEqual({
      edit_file: { destructiveHint: true, openWorldHint: false },
      get_time: { readOnlyHint: true, openWorldHint: false },
      list_files: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      read_file: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      write_file: { destructiveHint: true, openWorldHint: false },
    });
  });
});

describe("--check covers outputs and annotations", () => {
  it("names the tool whose output schema or annotations changed", () => {
    const { root } = generated({ "tools/t.ts": TOOLS });
    const io = { cwd: root, stdout: () => undefined, stderr: (text: string) => void errors.push(text) };
    const errors: string[] = [];
    expect(runGen([], io)).toBe(0);
    const out = path.join(root, "generated/schemas.json");
    const written = JSON.parse(readFileSync(out, "utf8"));
    written.outputs.weather.properties.temp.type = "string";
    written.annotations.reading.idempotentHint = false;
    // Same hash, so only --check can tell.
    writeFileSync(out, `${JSON.stringify(written, null, 2)}\n`);
    expect(runGen(["--check"], io)).toBe(1);
    expect(errors.join("")).toContain("is stale (changed: reading, weather); run npm run gen");
  });
});
