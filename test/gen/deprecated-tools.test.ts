import { describe, expect, it } from "vitest";
import type { SchemasFile } from "../../src/shared/schemas-file.js";
import { generateTool, parametersOf } from "./support.js";

/** The written entry of tool `name` in `tools` and in `strictTools`. */
function entries(file: SchemasFile | undefined, name: string) {
  expect(file).toBeDefined();
  const find = (list: SchemasFile["tools"]) => list.find((entry) => entry.function.name === name)!;
  return { lenient: find(file!.tools), strict: find(file!.strictTools!) };
}

describe("@deprecated in a tool's own JSDoc", () => {
  it("ends the description with a paragraph giving the reason, in tools and strictTools alike, and adds no key", () => {
    const { generation, messages } = generateTool([
      "/**",
      " * Finds files.",
      " *",
      " * Slow on large trees.",
      " * @deprecated Use   find_fast",
      " *   instead.",
      " * @param dir The folder.",
      " */",
      "export function find(dir: string): string { return dir; }",
      "",
    ].join("\n"));
    expect(messages).toEqual([]);
    const { lenient, strict } = entries(generation.file, "find");
    expect(lenient.function.description).toBe("Finds files.\n\nSlow on large trees.\n\nDeprecated: Use   find_fast\ninstead.");
    expect(strict.function.description).toBe(lenient.function.description);
    expect(Object.keys(lenient).sort()).toEqual(["function", "type"]);
    expect(Object.keys(lenient.function).sort()).toEqual(["description", "name", "parameters"]);
    expect(parametersOf(generation.file!, "find").properties.dir).toEqual({ type: "string", description: "The folder." });
  });

  it("without a reason says `Deprecated.`", () => {
    const { generation, messages } = generateTool("/**\n * Old search.\n * @deprecated\n */\nexport function old(): void {}\n");
    expect(messages).toEqual([]);
    expect(entries(generation.file, "old").lenient.function.description).toBe("Old search.\n\nDeprecated.");
  });

  it("is the whole description of a tool that has none, which is still warned about", () => {
    const { generation, messages } = generateTool("/** @deprecated gone in 2.0 */\nexport function gone(): void {}\n\n/** @deprecated */\nexport function bare(): void {}\n");
    expect(entries(generation.file, "gone").lenient.function.description).toBe("Deprecated: gone in 2.0");
    expect(entries(generation.file, "bare").lenient.function.description).toBe("Deprecated.");
    expect(messages).toEqual([
      'tools/t.ts:2:1 warning: tool "gone" has no description; add a JSDoc summary above it (models call tools far better with one)',
      'tools/t.ts:5:1 warning: tool "bare" has no description; add a JSDoc summary above it (models call tools far better with one)',
    ]);
  });

  it("counts the first one when written twice, and works on a tool declared as a const", () => {
    const { generation } = generateTool("/**\n * Twice.\n * @deprecated first\n * @deprecated second\n */\nexport const twice = (): void => {};\n");
    expect(entries(generation.file, "twice").lenient.function.description).toBe("Twice.\n\nDeprecated: first");
  });

  it("written after a @param still deprecates that parameter, not the tool", () => {
    const { generation, messages } = generateTool([
      "/**",
      " * Searches.",
      " * @param q The query.",
      " * @deprecated use text",
      " * @param text The text.",
      " */",
      "export function search(q: string, text: string): string { return q + text; }",
      "",
    ].join("\n"));
    expect(messages).toEqual([]);
    expect(entries(generation.file, "search").lenient.function.description).toBe("Searches.");
    expect(parametersOf(generation.file!, "search").properties).toEqual({
      q: { type: "string", description: "The query.", deprecated: true },
      text: { type: "string", description: "The text." },
    });
  });
});
