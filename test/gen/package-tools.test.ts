/**
 * Tools from a compiled package: a function known by its declaration (`.d.ts`), re-exported from a tool file,
 * is that file's tool, described by the declaration's JSDoc (`@default` standing in for the initializers a
 * declaration cannot hold).
 */
import { expect, it } from "vitest";
import path from "node:path";
import { generate, messages, writeTree } from "./support.js";

const declaration = `/**
 * Count the words of a text.
 * @param text The text.
 * @minLength 1
 * @param per How to count.
 * @default "line"
 */
export declare function count_words(text: string, per?: "line" | "file"): number;
/**
 * Two ways to call it.
 * @param a A number.
 */
export declare function twice(a: number): number;
export declare function twice(a: string): string;
`;

function packageTree(toolFile: string) {
  return writeTree({
    "node_modules/wordkit/package.json": JSON.stringify({ name: "wordkit", version: "1.0.0", types: "index.d.ts", main: "index.js" }),
    "node_modules/wordkit/index.d.ts": declaration,
    "node_modules/wordkit/index.js": "",
    "tools/words.ts": toolFile,
  });
}

it("a package's function re-exported from a tool file is a tool of that file, with its JSDoc, tags and @default", () => {
  const root = packageTree(`export { count_words } from "wordkit";\n`);
  const generation = generate(path.join(root, "tools"));
  expect(messages(generation.diagnostics, root)).toEqual([]);
  expect(generation.file?.tools).toEqual([
    {
      type: "function",
      function: {
        name: "count_words",
        description: "Count the words of a text.",
        parameters: {
          type: "object",
          properties: {
            text: { type: "string", description: "The text.", minLength: 1 },
            per: { type: "string", enum: ["line", "file"], description: "How to count.", default: "line" },
          },
          required: ["text"],
          additionalProperties: false,
        },
      },
    },
  ]);
  expect(generation.file?.bindings).toEqual([{ name: "count_words", file: "../tools/words.ts", exportName: "count_words", call: { kind: "positional", params: ["text", "per"] } }]);
  // Only local files are hashed here (an installed sigloop's own files are the exception).
  expect(generation.file?.inputs.files).toEqual(["../tools/words.ts"]);
});

it("an overloaded declaration is refused like an overloaded function", () => {
  const root = packageTree(`export { twice } from "wordkit";\n`);
  const generation = generate(path.join(root, "tools"));
  expect(generation.file).toBeUndefined();
  expect(messages(generation.diagnostics, root).join("\n")).toContain('tool "twice" is overloaded');
});
