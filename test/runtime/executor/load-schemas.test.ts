import { appendFileSync, cpSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { currentInputsHash } from "../../../src/shared/inputs-hash.js";
import type { SchemasFile } from "../../../src/shared/schemas-file.js";
import { loadSchemas } from "../../../src/runtime/execution/load-schemas.js";
import { fixtureDir, fixtureSchemas } from "../../fixtures/executor/schemas.js";

let project: string;
let schemasPath: string;

/** A generated-looking project: the fixture tools, and a schemas file beside them with a true hash. */
function writeSchemas(content: unknown): void {
  writeFileSync(schemasPath, typeof content === "string" ? content : JSON.stringify(content));
}

function freshSchemas(): SchemasFile {
  const inputs = { ...fixtureSchemas.inputs, hash: "" };
  inputs.hash = currentInputsHash(project, inputs) ?? "unreadable";
  return { ...fixtureSchemas, inputs };
}

beforeEach(() => {
  project = mkdtempSync(path.join(tmpdir(), "sigloop-load-"));
  cpSync(path.join(fixtureDir, "tools"), path.join(project, "tools"), { recursive: true });
  schemasPath = path.join(project, "schemas.json");
});

afterEach(() => rmSync(project, { recursive: true, force: true }));

describe("loadSchemas", () => {
  test("a fresh file loads as it is", () => {
    const schemas = freshSchemas();
    writeSchemas(schemas);
    expect(loadSchemas(schemasPath, project)).toEqual({ ok: true, schemas });
  });

  test("a missing file: run npm run gen, naming the file", () => {
    expect(loadSchemas(schemasPath, project)).toEqual({
      ok: false,
      error: { message: `${schemasPath} does not exist: run npm run gen -- --out schemas.json to generate the tool schemas.` },
    });
  });

  test("a file that is not JSON", () => {
    writeSchemas("{ half");
    expect(loadSchemas(schemasPath, project)).toEqual({
      ok: false,
      error: { message: `${schemasPath} is not valid JSON (Expected property name or '}' in JSON at position 2): run npm run gen -- --out schemas.json to write it again.` },
    });
  });

  test.each([
    [[], "the top level is not an object"],
    [{ tools: {}, bindings: [] }, '"tools" is not an array'],
    [{ ...fixtureSchemas, bindings: fixtureSchemas.bindings.slice(1) }, '"tools" has 25 entries but "bindings" has 24'],
    [{ ...fixtureSchemas, bindings: [...fixtureSchemas.bindings].reverse() }, "bindings[0] does not describe tool add (name, file, exportName)"],
    [{ ...fixtureSchemas, inputs: { toolsDir: "tools", files: [] } }, '"inputs" lacks toolsDir, files or hash'],
    [
      { ...fixtureSchemas, tools: [fixtureSchemas.tools[0], fixtureSchemas.tools[0]], bindings: [fixtureSchemas.bindings[0], fixtureSchemas.bindings[0]] },
      "tool add is defined twice",
    ],
    [{ ...fixtureSchemas, strictTools: {} }, '"strictTools" is not an array'],
    [{ ...fixtureSchemas, strictTools: fixtureSchemas.tools.slice(1) }, '"tools" has 25 entries but "strictTools" has 24'],
    [{ ...fixtureSchemas, strictTools: fixtureSchemas.tools }, "strictTools[0] is not the strict definition of tool add"],
  ])("a file of the wrong shape says where (%#)", (content, problem) => {
    writeSchemas(content);
    expect(loadSchemas(schemasPath, project)).toEqual({
      ok: false,
      error: { message: `${schemasPath} is not a schemas file: ${problem}. Run npm run gen -- --out schemas.json to write it again.` },
    });
  });

  const changedSources = "is out of date: the tool sources changed since it was generated. Run npm run gen -- --out schemas.json to regenerate it.";

  test("an edited tool file makes it stale", () => {
    writeSchemas(freshSchemas());
    appendFileSync(path.join(project, "tools/math.ts"), "\n// edited\n");
    expect(loadSchemas(schemasPath, project)).toEqual({ ok: false, error: { message: `${schemasPath} ${changedSources}` } });
  });

  test("a new tool file makes it stale", () => {
    writeSchemas(freshSchemas());
    writeFileSync(path.join(project, "tools/new-tool.ts"), "export function fresh(): void {}\n");
    expect(loadSchemas(schemasPath, project)).toEqual({ ok: false, error: { message: `${schemasPath} ${changedSources}` } });
  });

  test("a deleted input file is named", () => {
    writeSchemas(freshSchemas());
    unlinkSync(path.join(project, "tools/records.ts"));
    expect(loadSchemas(schemasPath, project)).toEqual({
      ok: false,
      error: { message: `${schemasPath} is out of date: tools/records.ts no longer exists. Run npm run gen -- --out schemas.json to regenerate it.` },
    });
  });
});
