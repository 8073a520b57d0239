import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import type { ParametersSchema, SchemasFile } from "../../src/shared/schemas-file.js";
import { formatDiagnostic, type Diagnostic } from "../../src/gen/diagnostic.js";
import { ToolGenerator, type Generation } from "../../src/gen/tool-generator.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const fixturesDir = path.join(repoRoot, "test/fixtures/gen");

/** A fresh folder under the OS temp dir holding the given files (paths relative to it). */
export function writeTree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "sigloop-gen-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

/** Generates a tools folder in process, as `npm run gen -- --tools <dir> --out <out>` would. */
export function generate(toolsDir: string, outFile = path.join(toolsDir, "..", "generated", "schemas.json")): Generation {
  const generator = ToolGenerator.open(toolsDir, outFile);
  if ("severity" in generator) return { diagnostics: [generator] };
  return generator.generateAll();
}

export function messages(diagnostics: readonly Diagnostic[], cwd = repoRoot): string[] {
  return diagnostics.map((diagnostic) => formatDiagnostic(diagnostic, cwd));
}

export function parametersOf(file: SchemasFile, name: string): ParametersSchema {
  const tool = file.tools.find((entry) => entry.function.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool.function.parameters;
}

/** Compiles a schema as the runtime does (Ajv defaults: strict mode, plus ajv-formats); returns what Ajv logged. */
export function compileStrict(schema: object): { validate: (value: unknown) => boolean; logged: string[] } {
  const logged: string[] = [];
  const record = (...args: unknown[]) => logged.push(args.map(String).join(" "));
  const ajv = new Ajv({ logger: { log: record, warn: record, error: record } });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return { validate: (value) => validate(value) as boolean, logged };
}

/** Generates one tool file and returns the diagnostics (relative to the folder) and the file. */
export function generateTool(source: string, extra: Record<string, string> = {}) {
  const root = writeTree({ "tools/t.ts": source, ...extra });
  const generation = generate(path.join(root, "tools"));
  return { root, generation, messages: messages(generation.diagnostics, root) };
}
