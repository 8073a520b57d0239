import path from "node:path";
import { describe, expect, it } from "vitest";
import { generate, generateTool, messages, writeTree } from "./support.js";

describe("re-exports", () => {
  const g = "/** Tool g. @param word A word. */\nexport function g(word: string): string {\n  return word;\n}\n";

  it("a re-export of another tool file's function is not a second tool", () => {
    for (const barrel of ['export * from "./a";\n', 'export { g } from "./a";\n', 'export { g as h } from "./a.js";\n']) {
      const root = writeTree({ "tools/a.ts": "\n\n" + g, "tools/b.ts": barrel });
      const generation = generate(path.join(root, "tools"));
      expect(messages(generation.diagnostics, root)).toEqual([]);
      expect(generation.file!.bindings).toEqual([{ name: "g", file: "../tools/a.ts", exportName: "g", call: { kind: "positional", params: ["word"] } }]);
    }
  });

  it("a re-export from a file outside the tools folder is ignored, with a warning", () => {
    const root = writeTree({ "lib/x.ts": g, "tools/index.ts": '/** Local. */\nexport function local(): void {}\nexport { g } from "../lib/x";\n' });
    const generation = generate(path.join(root, "tools"));
    expect(messages(generation.diagnostics, root)).toEqual([
      'tools/index.ts:3:1 warning: "g" is re-exported from ../lib/x.ts, which is not a tool file, so it is not a tool; a tool is a function exported by the tool file that declares it: move it here or wrap it in a function declared here',
    ]);
    expect(generation.file!.tools.map((tool) => tool.function.name)).toEqual(["local"]);
  });
});

describe("overloads", () => {
  it("an overloaded function is an error at its first signature", () => {
    const { generation, messages: shown } = generateTool([
      "/** Overloaded. */",
      "export function over(x: string): string;",
      "export function over(x: number): number;",
      "export function over(x: any): any {",
      "  return x;",
      "}",
      "",
    ].join("\n"));
    expect(shown).toEqual([
      'tools/t.ts:2:1 error: tool "over" is overloaded, and one tool has one parameters schema; give it a single signature (a union parameter type covers several call forms)',
    ]);
    expect(generation.file).toBeUndefined();
  });
});
