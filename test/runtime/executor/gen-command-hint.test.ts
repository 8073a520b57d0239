/**
 * The gen command a "run gen" hint names writes the very schemas file that was missing or stale, typed
 * from the folder the user is in.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { genCommandFor } from "../../../src/runtime/execution/gen-command.js";
import { loadSchemas } from "../../../src/runtime/execution/load-schemas.js";

function project(): string {
  const root = mkdtempSync(path.join(tmpdir(), "sigloop-hint-"));
  writeFileSync(path.join(root, "package.json"), "{}\n");
  mkdirSync(path.join(root, "src", "deep"), { recursive: true });
  return root;
}

describe("the gen command a hint names", () => {
  it("is plain gen for the project's own generated/schemas.json, from its root or a subfolder", () => {
    const root = project();
    const file = path.join(root, "generated", "schemas.json");
    expect(genCommandFor(file, undefined, root)).toBe("npm run gen");
    expect(genCommandFor(file, path.join(root, "tools"), path.join(root, "src", "deep"))).toBe("npm run gen");
  });

  it("names another file with --out, relative to the current folder when inside it, else absolute", () => {
    const root = project();
    expect(genCommandFor(path.join(root, "out", "tools.json"), undefined, root)).toBe("npm run gen -- --out out/tools.json");
    expect(genCommandFor(path.join(root, "out", "tools.json"), undefined, path.join(root, "src"))).toBe(`npm run gen -- --out ${path.join(root, "out", "tools.json")}`);
  });

  it("names a tools folder other than the project's tools with --tools", () => {
    const root = project();
    expect(genCommandFor(path.join(root, "generated", "schemas.json"), path.join(root, "src", "agent-tools"), root)).toBe("npm run gen -- --tools src/agent-tools");
  });

  it("quotes a path a shell would split or read", () => {
    const root = project();
    expect(genCommandFor(path.join(root, "my schemas", "it's.json"), undefined, root)).toBe(`npm run gen -- --out 'my schemas/it'\\''s.json'`);
  });

  it("is what loadSchemas tells to run for a missing file given by path", () => {
    const root = project();
    const file = path.join(root, "build", "schemas.json");
    expect(loadSchemas(file, root)).toEqual({ ok: false, error: { message: `${file} does not exist: run npm run gen -- --out build/schemas.json to generate the tool schemas.` } });
    const usual = path.join(root, "generated", "schemas.json");
    expect(loadSchemas(usual, root)).toEqual({ ok: false, error: { message: `${usual} does not exist: run npm run gen to generate the tool schemas.` } });
  });
});
