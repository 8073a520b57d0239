import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { repoRoot, writeTree } from "./support.js";

/**
 * The library files gen compiles against come from @ts-morph/common's bundle, or from the copy of the
 * ES ones kept in node_modules/.cache. Each step is a fresh `node`, as each gen run is; the bundle here
 * is a stand-in that counts how often it is loaded.
 */
const module = (file: string) => JSON.stringify(pathToFileURL(path.join(repoRoot, file)).href);

function libFilesInFreshProcess(bundle: string, readOnly = false): { names: string[]; es5?: string; dom?: string } {
  const script = [
    `const { leaveCodeCacheUnwritten } = await import(${module("src/gen/program/code-cache.ts")});`,
    `const { loadLibFiles } = await import(${module("src/gen/program/lib-files.ts")});`,
    readOnly ? "leaveCodeCacheUnwritten();" : "",
    `const libs = loadLibFiles(${JSON.stringify(bundle)});`,
    'console.log(JSON.stringify({ names: [...libs.names], es5: libs.text("lib.es5.d.ts"), dom: libs.text("lib.dom.d.ts") }));',
  ].join(" ");
  return JSON.parse(execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8" })) as never;
}

describe("the library files", () => {
  const root = writeTree({
    "node_modules/common/index.js": [
      'require("node:fs").appendFileSync(require("node:path").join(__dirname, "loads.txt"), "x");',
      'exports.getLibFiles = () => [{ fileName: "lib.es5.d.ts", text: "declare var es5: number;" }, { fileName: "lib.dom.d.ts", text: "declare var dom: number;" }];',
      "",
    ].join("\n"),
  });
  const bundle = path.join(root, "node_modules/common/index.js");
  const loads = () => (existsSync(path.join(root, "node_modules/common/loads.txt")) ? readFileSync(path.join(root, "node_modules/common/loads.txt"), "utf8").length : 0);
  const kept = () => (existsSync(path.join(root, "node_modules/.cache/sigloop")) ? readdirSync(path.join(root, "node_modules/.cache/sigloop")).filter((name) => name.endsWith(".lib.json")) : []);
  const expected = { names: ["lib.es5.d.ts", "lib.dom.d.ts"], es5: "declare var es5: number;", dom: "declare var dom: number;" };

  it("come from the bundle, and gen --check keeps no copy of them", () => {
    expect(libFilesInFreshProcess(bundle, true)).toEqual(expected);
    expect(loads()).toBe(1);
    expect(kept()).toEqual([]);
  });

  it("come from the kept copy in the next runs, without loading the bundle, but for files not kept (the DOM's)", () => {
    expect(libFilesInFreshProcess(bundle)).toEqual(expected);
    expect(loads()).toBe(2);
    expect(kept()).toHaveLength(1);
    const script = `const { loadLibFiles } = await import(${module("src/gen/program/lib-files.ts")}); const libs = loadLibFiles(${JSON.stringify(bundle)}); console.log(libs.text("lib.es5.d.ts"), [...libs.names].length);`;
    expect(execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8" }).trim()).toBe("declare var es5: number; 2");
    expect(loads()).toBe(2);
    expect(libFilesInFreshProcess(bundle)).toEqual(expected);
    expect(loads()).toBe(3);
  });
});
