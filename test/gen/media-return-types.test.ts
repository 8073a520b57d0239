/**
 * A tool that returns sigloop's `ToolImage` or `ToolAudio` (alone, awaited, or in an array) gets no
 * `outputs` entry: MCP serves it as image or audio content, and an output schema would demand
 * `structuredContent`. An interface of the project's own that merely looks the same still gets one.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generatedSchemasText } from "../cli/support.js";
import { ToolGenerator } from "../../src/gen/tool-generator.js";
import { richSchemas, richToolsDir } from "../fixtures/rich-results/schemas.js";

describe("gen for tools that return images or audio", () => {
  it("writes no output schema for them, warns of nothing, and writes their parameters as for any tool", () => {
    const generator = ToolGenerator.open(richToolsDir, path.join(mkdtempSync(path.join(tmpdir(), "sigloop-media-gen-")), "schemas.json"));
    if (!(generator instanceof ToolGenerator)) throw new Error(generator.message);
    expect(generator.generateAll().diagnostics.map((diagnostic) => diagnostic.message)).toEqual([]);
    const { schemas } = richSchemas();
    expect(Object.keys(schemas.outputs ?? {})).toEqual([]);
    expect(schemas.tools.map((tool) => tool.function.name)).toEqual(["chart", "chart_with_caption", "chatty", "clip", "count_to", "logo", "oversized"]);
  });

  it("still writes one for a look-alike object type of the project's own", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sigloop-media-gen-"));
    const toolsDir = path.join(dir, "tools");
    writeFileSync(path.join(dir, "package.json"), "{}");
    mkdirSync(toolsDir);
    writeFileSync(path.join(toolsDir, "pic.ts"), `interface MediaItem { mimeType: string; data: string }\n/** A picture as data. */\nexport function pic(): MediaItem {\n  return { mimeType: "image/png", data: "" };\n}\n`);
    const file = JSON.parse(generatedSchemasText(toolsDir, path.join(dir, "schemas.json"))) as { outputs?: Record<string, unknown> };
    expect(Object.keys(file.outputs ?? {})).toEqual(["pic"]);
  });
});

