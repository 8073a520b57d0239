import fc from "fast-check";
import { Node, Project } from "ts-morph";
import { describe, expect, it } from "vitest";
import { lastJsDoc, readToolDocs } from "../../src/gen/reflect/tool-docs.js";

/**
 * gen reads a tool's JSDoc through the compiler's nodes. Descriptions were read with ts-morph before,
 * and tool files written for that must keep their exact descriptions: ts-morph is the oracle here.
 */

const pieces = [
  " ", "  ", "\t", "\u00a0", "\u2003", "*", "**", "/**", "\n", "\r\n", "\r", "\n * ", "\n *", "\n   * ", "\n\n",
  "Text", "Two words.", "- ", "`code`", "{@link Foo}", "x@y", "@ ", "@param x The x.", "@param y", "@minimum 1",
  "@readOnly", "@readOnly false", '@example {"a": 1}',
];
const comment = fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 25 }).map((parts) => parts.join("")).filter((body) => !`/**${body}`.includes("*/"));

function morphDescription(text: string): string {
  return text.replace(/\r\n/g, "\n").trim().replace(/^-\s+/, "");
}

describe("reading a tool's JSDoc", () => {
  const project = new Project({ useInMemoryFileSystem: true });
  let count = 0;

  it("takes the last comment above the tool, and its description and @param names exactly as ts-morph reads them", () => {
    fc.assert(
      fc.property(comment, fc.constantFrom("", "/** An older comment. */\n", "// a line comment\n"), fc.boolean(), (body, before, asConst) => {
        const declaration = asConst ? "export const f = (x: number) => x;" : "export function f(x: number) { return x; }";
        const file = project.createSourceFile(`/t${count++}.ts`, `${before}/**${body}*/\n${declaration}\n`);
        const host = asConst ? file.getVariableStatementOrThrow("f") : file.getFunctionOrThrow("f");
        const doc = host.getJsDocs().at(-1)!;
        const docs = readToolDocs(host.compilerNode);
        expect(docs.description).toBe(morphDescription(doc.getDescription()));
        const named = doc.getTags().filter(Node.isJSDocParameterTag).map((tag) => tag.getNameNode().getText());
        expect([...docs.params.keys()]).toEqual([...new Set(named)]);
        expect(lastJsDoc(host.compilerNode)).toBe(doc.compilerNode);
        project.removeSourceFile(file);
      }),
      { numRuns: 2000, seed: 20_261_201 },
    );
  });
});
