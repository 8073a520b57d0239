import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SchemasFile } from "../../src/shared/schemas-file.js";
import { generate, messages, writeTree } from "./support.js";

/**
 * Tools share parameter types, and gen finishes each shared type once: what one tool adds to a shared
 * type (its descriptions, tags, defaults) must never show in another tool's schemas.
 */

const types = `
/**
 * A window of results.
 * @example {"page": 1}
 */
export interface Paging {
  /** @minimum 1 */
  page: number;
  /** Rows per page. */
  size?: number;
}
/** How to match. */
export type Match = "exact" | "prefix" | number;
export type Span = [number, number?];
`;

/** A tool file's text for tool `name`; with `example`, its `paging` parameter has an example of its own. */
const tool = (name: string, doc: string, example: boolean) => `
/**
 * ${doc}
 * @param paging ${doc} paging.${example ? '\n * @example {"page": 2}' : ""}
 * @param paging.size ${doc} size.
 * @param match ${doc} match.
 * @maximum 9
 * @param span ${doc} span.
 * @maxItems 1
 */
export function ${name}(paging: Paging, match: Match = "exact", span?: Span): Paging {
  return { page: paging.page + String(match).length + (span?.length ?? 0) };
}
`;

function toolsFile(names: string[]): string {
  return `import type { Match, Paging, Span } from "./types";\n${names.map((name) => tool(name, `Tool ${name}.`, name !== "b")).join("")}`;
}

function entriesOf(file: SchemasFile, name: string): unknown[] {
  return [
    file.tools.find((entry) => entry.function.name === name),
    file.strictTools?.find((entry) => entry.function.name === name),
    file.outputs?.[name],
  ];
}

function generated(names: string[]): { file: SchemasFile; warnings: string[] } {
  const root = writeTree({ "tools/types.ts": types, "tools/tools.ts": toolsFile(names) });
  const generation = generate(path.join(root, "tools"));
  expect(messages(generation.diagnostics, root).filter((message) => message.includes(" error: "))).toEqual([]);
  return { file: generation.file!, warnings: messages(generation.diagnostics, root).filter((message) => message.includes(`"b"`)) };
}

const alike = `import type { Match, Paging } from "./types";
/**
 * Same words.
 * @param paging Which page.
 * @param paging.size Only in x.
 * @param match How to match.
 */
export function x(paging: Paging, match: Match): string {
  return String(paging.page) + String(match);
}
/**
 * Same words.
 * @param paging Which page.
 * @param match How to match.
 * @maximum 9
 */
export function y(paging: Paging, match: Match): string {
  return String(paging.page) + String(match);
}
`;

describe("types shared between tools", () => {
  it("keep a parameter written alike in two tools apart where one adds a tag or a member's description", () => {
    const root = writeTree({ "tools/types.ts": types, "tools/alike.ts": alike });
    const generation = generate(path.join(root, "tools"));
    expect(messages(generation.diagnostics, root).filter((message) => message.includes(" error: "))).toEqual([]);
    const properties = (name: string) => generation.file!.tools.find((entry) => entry.function.name === name)!.function.parameters.properties;
    expect(properties("x").match).toEqual({ description: "How to match.", anyOf: [{ type: "string", enum: ["exact", "prefix"] }, { type: "number" }] });
    expect(properties("y").match).toEqual({ description: "How to match.", anyOf: [{ type: "string", enum: ["exact", "prefix"] }, { type: "number", maximum: 9 }] });
    expect(properties("x").paging).toMatchObject({ properties: { size: { type: "number", description: "Only in x." } } });
    expect(properties("y").paging).toMatchObject({ properties: { size: { type: "number", description: "Rows per page." } } });
  });

  it("give a tool the same schemas, warnings included, whether other tools use them before it or not", () => {
    const alone = generated(["b"]);
    const after = generated(["a", "b", "c"]);
    expect(entriesOf(after.file, "b")).toEqual(entriesOf(alone.file, "b"));
    expect(after.warnings).toEqual(alone.warnings);
  });

  it("keep each tool's own descriptions and tags to that tool", () => {
    const { file } = generated(["a", "b"]);
    const paging = (name: string) => (file.tools.find((entry) => entry.function.name === name)!.function.parameters.properties.paging);
    expect(paging("a")).toEqual({
      type: "object",
      description: "Tool a. paging.",
      properties: { page: { type: "number", minimum: 1 }, size: { type: "number", description: "Tool a. size." } },
      additionalProperties: false,
      required: ["page"],
      examples: [{ page: 2 }, { page: 1 }],
    });
    expect(paging("b")).toMatchObject({ description: "Tool b. paging.", properties: { size: { description: "Tool b. size." } }, examples: [{ page: 1 }] });
    expect(file.tools.find((entry) => entry.function.name === "b")!.function.parameters.properties.match).toEqual({
      description: "Tool b. match.",
      anyOf: [{ type: "string", enum: ["exact", "prefix"] }, { type: "number", maximum: 9 }],
      default: "exact",
    });
    expect(file.outputs?.a).toEqual({
      type: "object",
      description: "A window of results.",
      properties: { page: { type: "number", minimum: 1 }, size: { type: "number", description: "Rows per page." } },
      additionalProperties: false,
      required: ["page"],
      examples: [{ page: 1 }],
    });
  });
});
